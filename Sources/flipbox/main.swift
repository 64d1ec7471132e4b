print("flipbox")
