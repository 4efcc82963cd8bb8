package import AssetSyncModel

/// Content-defined chunking, FastCDC-style: a gear hash rolls over the bytes, and a chunk ends
/// where its top bits are zero, so that boundaries follow the content and an insertion moves only
/// the chunks around it. Normalized chunking (level 2): before `average` bytes the test looks at
/// two bits more, after it at two bits fewer, which gathers sizes around the average; no cut before
/// `minimum` (those bytes are not hashed at all), a forced cut at `maximum`. Each chunk's SHA-256
/// is taken as it passes. Streaming: feed any pieces, get each chunk as it completes; the memory
/// is the same for any file.
///
/// The gear table and the cut test are part of the manifest format: a list made with other ones
/// would match no old chunk. Not copyable: it owns a SHA-256 context.
package struct ContentChunker: ~Copyable {
    package let parameters: ChunkParameters
    private let hasher = SHA256()
    private var hash: UInt64 = 0
    /// Bytes of the chunk under way.
    private var length = 0
    /// The chunks `collect` has cut so far.
    private var collected: (lengths: [UInt32], digests: [ChunkDigest]) = ([], [])
    /// The cut tests before and after `average` bytes: the top bits that must all be zero.
    private let smallMask: UInt64
    private let largeMask: UInt64

    package init(parameters: ChunkParameters) {
        self.parameters = parameters
        smallMask = ~(UInt64.max >> UInt64(parameters.averageBits + 2))
        largeMask = ~(UInt64.max >> UInt64(parameters.averageBits - 2))
    }

    /// 256 fixed pseudo-random words, one per byte value: splitmix64 from the seed 0x61737379 ("assy").
    static let gear: [UInt64] = {
        var state: UInt64 = 0x6173_7379
        return (0..<256).map { _ in
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
    }()

    /// Cuts `bytes`, the next ones of the file, calling `chunk` with the length and digest of each
    /// chunk that ends inside them.
    package mutating func feed<Failure: Error>(
        _ bytes: UnsafeRawBufferPointer, _ chunk: (_ length: Int, _ digest: ChunkDigest) throws(Failure) -> Void
    ) throws(Failure) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0 else { return }
        let (minimum, average, maximum) = (parameters.minimum, parameters.average, parameters.maximum)
        var position = 0
        var chunkStart = 0
        while position < bytes.count {
            if length < minimum {
                let skip = min(minimum - length, bytes.count - position)
                position += skip
                length += skip
                if length < minimum { break }
            }
            // Up to a length of average - 1 the stricter test; from the average on the looser one,
            // and a cut at the maximum whatever the hash.
            var cut = length < average - 1
                && Self.scan(base, bytes.count, &position, &length, &hash, until: average - 1, mask: smallMask, forcedAt: .max)
            if !cut, length >= average - 1 {
                cut = Self.scan(base, bytes.count, &position, &length, &hash, until: maximum, mask: largeMask, forcedAt: maximum)
            }
            guard cut else { break }
            hasher.update(UnsafeRawBufferPointer(start: base + chunkStart, count: position - chunkStart))
            let done = length
            length = 0
            hash = 0
            chunkStart = position
            try chunk(done, ChunkDigest(hasher.finish()))
        }
        hasher.update(UnsafeRawBufferPointer(start: base + chunkStart, count: bytes.count - chunkStart))
    }

    /// Rolls the hash over the bytes from `position` while `length` is below `limit`; true at a cut
    /// (the hash's bits under `mask` all zero, or `length` reaching `forcedAt`), false when the bytes
    /// or the limit ran out first. The chunker's inner loop: one table read, shift and add per byte.
    @inline(__always)
    private static func scan(
        _ base: UnsafePointer<UInt8>, _ count: Int, _ position: inout Int, _ length: inout Int, _ hash: inout UInt64,
        until limit: Int, mask: UInt64, forcedAt forced: Int
    ) -> Bool {
        gear.withUnsafeBufferPointer { gear in
            var (at, done, rolled) = (position, length, hash)
            defer { (position, length, hash) = (at, done, rolled) }
            let end = min(count, at + (limit - done))
            while at < end {
                rolled = (rolled << 1) &+ gear[Int(base[at])]
                at += 1
                done += 1
                if rolled & mask == 0 || done >= forced { return true }
            }
            return false
        }
    }

    /// The last chunk: the bytes fed since the last cut, or nil when there are none.
    package mutating func finish() -> (length: Int, digest: ChunkDigest)? {
        guard length > 0 else { return nil }
        defer {
            length = 0
            hash = 0
        }
        return (length, ChunkDigest(hasher.finish()))
    }

    /// Cuts `bytes` as `feed` does, keeping the chunks for `finishList`.
    package mutating func collect(_ bytes: UnsafeRawBufferPointer) {
        var lengths = collected.lengths
        var digests = collected.digests
        collected = ([], [])
        feed(bytes) { length, digest in
            lengths.append(UInt32(length))
            digests.append(digest)
        }
        collected = (lengths, digests)
    }

    /// The chunk list of every byte given to `collect`.
    package mutating func finishList() -> ChunkList {
        var (lengths, digests) = collected
        collected = ([], [])
        if let last = finish() {
            lengths.append(UInt32(last.length))
            digests.append(last.digest)
        }
        return ChunkList(parameters: parameters, lengths: lengths, digests: digests)
    }

    /// The chunk list of `bytes` alone.
    package static func list(of bytes: UnsafeRawBufferPointer, parameters: ChunkParameters) -> ChunkList {
        var chunker = ContentChunker(parameters: parameters)
        chunker.collect(bytes)
        return chunker.finishList()
    }
}
