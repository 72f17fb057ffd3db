import Foundation
import SHA256
import Testing

@testable import Workshop

@Suite("Fingerprinting sources")
struct HashingTests {
  private func sha256(_ text: String) -> String {
    var hasher = SHA256()
    hasher.update(text)
    return hasher.finalize()
  }

  @Test func sha256MatchesTheStandardVectors() {
    #expect(sha256("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(sha256("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
        == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    #expect(sha256(String(repeating: "a", count: 1000)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
  }

  @Test func theHashFollowsContentsNotHiddenFiles() throws {
    try TempRepo.with { repo in
      try repo.write("Ex/Sources/A.swift", "let a = 1\n")
      try repo.write("Ex/Sources/Sub/B.swift", "let b = 2\n")
      let sources = ["Ex/Sources"]
      #expect(SourceHasher.files(of: sources, root: repo.root) == ["Ex/Sources/A.swift", "Ex/Sources/Sub/B.swift"])
      let original = SourceHasher.hash(of: sources, root: repo.root)
      #expect(SourceHasher.hash(of: sources, root: repo.root) == original)

      try repo.write("Ex/Sources/.A.swift.swp", "editor junk")
      try repo.write("Ex/Sources/.build/x.o", "build junk")
      #expect(SourceHasher.hash(of: sources, root: repo.root) == original)

      try repo.write("Ex/Sources/Sub/B.swift", "let b = 3\n")
      let edited = SourceHasher.hash(of: sources, root: repo.root)
      #expect(edited != original)
      try repo.write("Ex/Sources/Sub/B.swift", "let b = 2\n")
      #expect(SourceHasher.hash(of: sources, root: repo.root) == original)

      try repo.write("Ex/Sources/C.swift", "")
      #expect(SourceHasher.hash(of: sources, root: repo.root) != original)
      #expect(SourceHasher.hash(of: ["Ex/Nothing"], root: repo.root) != SourceHasher.hash(of: [], root: repo.root))
    }
  }
}
