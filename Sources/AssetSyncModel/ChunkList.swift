/// A file's content-defined chunks: the sizes it was cut with, and each chunk's length
/// and strong hash, in file order. A pull that holds an old version of the file cuts it the same
/// way, copies the chunks whose hashes are listed here and fetches only the rest.
///
/// In a manifest it is one text, `MIN,AVG,MAX:BASE64`: the sizes in bytes, then base64 of the
/// packed list, 20 bytes per chunk (its length as a big-endian UInt32, then its `ChunkDigest`).
/// A class, so that an entry without chunks pays one word for the field.
package final class ChunkList: Equatable, Sendable {
    package let parameters: ChunkParameters
    package let lengths: [UInt32]
    package let digests: [ChunkDigest]

    /// Bytes per chunk in the packed list.
    static let packedBytes = 4 + ChunkDigest.byteCount

    /// The list as the chunker cut it: no rule is checked.
    package init(parameters: ChunkParameters, lengths: [UInt32], digests: [ChunkDigest]) {
        precondition(lengths.count == digests.count, "a chunk list has a digest per length")
        self.parameters = parameters
        self.lengths = lengths
        self.digests = digests
    }

    package var count: Int { lengths.count }

    /// Each chunk's range in the file, in order.
    package var ranges: [Range<Int64>] {
        var start: Int64 = 0
        return lengths.map { length in
            defer { start += Int64(length) }
            return start..<start + Int64(length)
        }
    }

    /// The manifest's text of this list.
    package var text: String {
        var packed: [UInt8] = []
        packed.reserveCapacity(count * Self.packedBytes)
        for (length, digest) in zip(lengths, digests) {
            for shift in stride(from: 24, through: 0, by: -8) { packed.append(UInt8(truncatingIfNeeded: length >> UInt32(shift))) }
            for word in [digest.high, digest.low] {
                for shift in stride(from: 56, through: 0, by: -8) { packed.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
            }
        }
        return "\(parameters):" + Base64.encode(packed)
    }

    /// The list a manifest's `chunks` text spells for a file of `size` bytes, refused with the rule
    /// it breaks: the form, sane sizes, strict base64 of whole 20-byte records, at most one chunk
    /// per `minimum` bytes (and none for an empty file), each chunk from `minimum` (the last from
    /// 1) to `maximum` bytes, and lengths that add up to `size`.
    package convenience init(manifestText text: String, size: Int64) throws(RuleViolation) {
        var value: String { QuotedValue.quote(text) }
        let utf8 = text.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else {
            throw RuleViolation("chunks must be \"MIN,AVG,MAX:BASE64\" (the chunk sizes, then the packed list)", value: value)
        }
        let sizes = Substring(text)[..<colon].split(separator: ",", omittingEmptySubsequences: false)
        let numbers = sizes.compactMap { $0.utf8.allSatisfy { (0x30...0x39).contains($0) } && $0.utf8.count <= 9 ? Int($0) : nil }
        guard sizes.count == 3, numbers.count == 3 else {
            throw RuleViolation("chunks must start with three sizes in bytes, \"MIN,AVG,MAX:\"", value: value)
        }
        let parameters = try ChunkParameters(minimum: numbers[0], average: numbers[1], maximum: numbers[2])
        let base64 = Substring(text)[utf8.index(after: colon)...]
        let packed: [UInt8]
        switch Base64.decode(base64.utf8) {
        case .success(let bytes): packed = bytes
        case .failure(let error): throw RuleViolation("chunks list is not valid base64: \(error)", value: value)
        }
        guard packed.count % Self.packedBytes == 0 else {
            throw RuleViolation("chunks list must be whole \(Self.packedBytes)-byte records (length, then 16 bytes of SHA-256)", value: value)
        }
        let count = packed.count / Self.packedBytes
        let most = size == 0 ? 0 : size / Int64(parameters.minimum) + 1
        guard count <= most, size == 0 || count > 0 else {
            throw RuleViolation("chunks lists \(count) chunks, but a file of \(size) bytes has 1 to \(most) of them", value: value)
        }
        var lengths: [UInt32] = []
        var digests: [ChunkDigest] = []
        lengths.reserveCapacity(count)
        digests.reserveCapacity(count)
        var total: Int64 = 0
        for index in 0..<count {
            let record = packed[index * Self.packedBytes..<(index + 1) * Self.packedBytes]
            let length = record.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let high = record.dropFirst(4).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let low = record.dropFirst(12).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let shortest = index == count - 1 ? 1 : parameters.minimum
            guard Int(length) >= shortest, Int(length) <= parameters.maximum else {
                throw RuleViolation(
                    "chunks[\(index)] is \(length) bytes long; a chunk must be \(shortest) to \(parameters.maximum)", value: value)
            }
            total += Int64(length)
            lengths.append(length)
            digests.append(ChunkDigest(high: high, low: low))
        }
        guard total == size else {
            throw RuleViolation("chunks lengths add up to \(total) bytes, not the size \(size)", value: value)
        }
        self.init(parameters: parameters, lengths: lengths, digests: digests)
    }

    package static func == (lhs: ChunkList, rhs: ChunkList) -> Bool {
        lhs === rhs || (lhs.parameters == rhs.parameters && lhs.lengths == rhs.lengths && lhs.digests == rhs.digests)
    }
}
