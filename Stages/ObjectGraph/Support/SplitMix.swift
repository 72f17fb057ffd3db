/// The finalizer of Steele, Lea and Flood's SplitMix64: it spreads the bits of a 64-bit value, so that
/// close inputs (consecutive primary keys) give unrelated hashes. The engine's cheap hashes (object IDs,
/// the registry's tables) all end with it, in place of a full `Hasher` run.
enum SplitMix {
  @inline(__always)
  static func mix(_ value: UInt64) -> Int {
    var z = value
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return Int(bitPattern: UInt(z ^ (z >> 31)))
  }
}
