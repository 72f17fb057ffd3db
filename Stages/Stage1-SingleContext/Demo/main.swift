print("stage 1 demo: not written yet")
