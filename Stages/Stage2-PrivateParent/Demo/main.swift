print("stage 2 demo: not written yet")
