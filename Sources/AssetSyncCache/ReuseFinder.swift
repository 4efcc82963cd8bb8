package import AssetSyncModel

/// Finds, for entries about to be fetched, files already on the machine that the state indexes of
/// some directories record with the same size and CRC-32. Sources are searched in the order given
/// (the caller puts DEST first, then another generation, then each `--reuse-from` in its order);
/// within one source, in the index's path order. The finder proves nothing: `LocalCopy` does.
/// An entry or a record without a CRC-32 (a SHA-256 alone) has no key, and is neither looked up nor found.
package struct ReuseFinder: Sendable {
    /// The size and CRC-32 of the bytes wanted.
    struct Key: Hashable {
        var size: Int64
        var crc32: UInt32

        init(size: Int64, crc32: UInt32) {
            self.size = size
            self.crc32 = crc32
        }

        /// The key of `entry`'s bytes; nil when it gives no CRC-32.
        init?(_ entry: ManifestEntry) {
            guard let crc32 = entry.crc32 else { return nil }
            self.init(size: entry.size, crc32: crc32)
        }
    }

    private let candidatesByKey: [Key: [ReuseCandidate]]

    /// Indexes the records of `sources` that match the size and CRC-32 of one of `entries`;
    /// the rest of each index (usually most of it) is never kept. The smaller side is the one put
    /// in a hash table: a million new entries against an empty or small index, or a few entries
    /// against a large one, each cost no more than a pass over the larger.
    package init(sources: [ReuseSource], for entries: [ManifestEntry]) {
        let records = sources.reduce(0) { $0 + $1.index.entries.count }
        guard records > 0, !entries.isEmpty else {
            candidatesByKey = [:]
            return
        }
        var found: [Key: [ReuseCandidate]] = [:]
        if records < entries.count {
            var all: [Key: [ReuseCandidate]] = [:]
            for source in sources {
                for entry in source.index.entries {
                    guard let crc32 = entry.record.crc32 else { continue }
                    all[Key(size: entry.record.size, crc32: crc32), default: []]
                        .append(ReuseCandidate(source: source, path: entry.path, record: entry.record))
                }
            }
            for entry in entries where entry.size > 0 {
                guard let key = Key(entry) else { continue }
                if found[key] == nil, let candidates = all[key] { found[key] = candidates }
            }
        } else {
            let wanted = Set(entries.lazy.filter { $0.size > 0 }.compactMap(Key.init))
            for source in sources {
                for entry in source.index.entries {
                    guard let crc32 = entry.record.crc32 else { continue }
                    let key = Key(size: entry.record.size, crc32: crc32)
                    if wanted.contains(key) { found[key, default: []].append(ReuseCandidate(source: source, path: entry.path, record: entry.record)) }
                }
            }
        }
        candidatesByKey = found
    }

    /// The files that may hold `entry`'s bytes, best first; never the entry's own path in DEST
    /// (that file is the one being replaced).
    package func candidates(for entry: ManifestEntry) -> [ReuseCandidate] {
        guard let key = Key(entry), let all = candidatesByKey[key] else { return [] }
        // A record of another SHA-256 is another file whose CRC-32 collides: no lead at all.
        return all.filter { !($0.source.isDestination && $0.path == entry.path) && !($0.record.sha256 != nil && entry.sha256 != nil && $0.record.sha256 != entry.sha256) }
    }

    /// Whether no entry has any candidate: the usual case, which costs nothing more.
    package var isEmpty: Bool { candidatesByKey.isEmpty }
}
