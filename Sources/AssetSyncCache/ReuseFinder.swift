package import AssetSyncModel

/// Finds, for entries about to be fetched, files already on the machine that the state indexes of
/// some directories record with the same size and CRC-32 (or, for an entry that gives a SHA-256
/// alone, as a Metalink's do, the same size and SHA-256). Sources are searched in the order given
/// (the caller puts DEST first, then another generation, then each `--reuse-from` in its order);
/// within one source, in the index's path order. The finder proves nothing: `LocalCopy` does.
package struct ReuseFinder: Sendable {
    /// The size and checksum of the bytes wanted: the CRC-32 when the entry gives one, else its SHA-256.
    enum Key: Hashable {
        case crc32(size: Int64, UInt32)
        case sha256(size: Int64, SHA256Digest)

        /// The key of `entry`'s bytes; nil when it gives neither checksum.
        init?(_ entry: ManifestEntry) {
            if let crc32 = entry.crc32 {
                self = .crc32(size: entry.size, crc32)
            } else if let sha256 = entry.sha256 {
                self = .sha256(size: entry.size, sha256)
            } else {
                return nil
            }
        }

        /// The keys a record of a file answers to: each checksum it proved.
        static func of(_ record: FileProof) -> [Key] {
            (record.crc32.map { [.crc32(size: record.size, $0)] } ?? []) + (record.sha256.map { [.sha256(size: record.size, $0)] } ?? [])
        }
    }

    private let candidatesByKey: [Key: [ReuseCandidate]]

    /// Indexes the records of `sources` that match the size and checksum of one of `entries`;
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
                    for key in Key.of(entry.record) {
                        all[key, default: []].append(ReuseCandidate(source: source, path: entry.path, record: entry.record))
                    }
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
                    for key in Key.of(entry.record) where wanted.contains(key) {
                        found[key, default: []].append(ReuseCandidate(source: source, path: entry.path, record: entry.record))
                    }
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
