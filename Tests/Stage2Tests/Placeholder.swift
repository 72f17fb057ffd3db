import Testing

@Test func placeholderStage2() {}
