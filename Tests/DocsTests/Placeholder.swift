import Testing

@Test func placeholderDocs() {}
