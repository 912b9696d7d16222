print("molt")
