print("stage4-demo: coming")
