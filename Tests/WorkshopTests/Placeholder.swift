import Testing

@Test func placeholderWorkshop() {}
