import AssetSyncModel
import Glibc

/// The state index of a `next/` made of clones of the current generation (`GenerationStore.prepareBuild`
/// on a file system with reflinks). A record names an inode, and a clone is a new one: each clone made
/// takes over the record of the file it was cloned from, when that record still describes it, and a
/// file of a recycled generation that is kept for holding the same bytes keeps its own record. A record
/// only vouches for a file whose size, mtime and inode it matches, so the pull's walk still catches a
/// kept file that was edited in place. Records are found by inode (as `getdents` and `stat` tell it)
/// rather than by path.
final class CloneRecords {
    /// The current generation's records, which describe the files clones are made from.
    private let current: StateIndex
    /// The records of the tree being made into `next/`; empty for a `next/` made afresh.
    private let previous: StateIndex
    private let resumed: Bool
    /// Whether both indexes give the same paths with the same bytes (the common case: a scheduled pull
    /// of an unchanged set): then a file of the tree stays if it has a record of its own, with no
    /// current record looked up; that record still has to describe it for the pull to call it current.
    private let sameEverywhere: Bool
    /// Each record's place in `current.entries` and `previous.entries`, by inode.
    private lazy var currentByInode = Self.places(current)
    private lazy var previousByInode = Self.places(previous)
    /// Whether the file of each record in `previous.entries` was kept (found by its inode), and how many were.
    private var kept: [Bool]
    private var keptCount = 0
    /// The record of each clone made, or nil where the file cloned had none that described it.
    private var clones: [String: FileProof?] = [:]

    /// `previous` is the index of the tree being made into `next/`: a recycled generation's, whose files
    /// stay only where `holdsCurrentBytes` says so, or, when `resumed`, an interrupted pull's `next/`,
    /// which is resumed as it is and whose records stand.
    init(current: StateIndex, previous: StateIndex, resumed: Bool) {
        self.current = current
        self.previous = previous
        self.resumed = resumed
        sameEverywhere = !resumed && current.entries.count == previous.entries.count
            && zip(current.entries, previous.entries).allSatisfy { Self.sameBytes($0.record, $1.record) && $0.path == $1.path }
        kept = [Bool](repeating: false, count: previous.entries.count)
    }

    private static func sameBytes(_ a: FileProof, _ b: FileProof) -> Bool {
        a.size == b.size && a.crc32 == b.crc32 && a.sha256 == b.sha256
    }

    private static func places(_ index: StateIndex) -> [UInt64: Int] {
        var places: [UInt64: Int] = [:]
        places.reserveCapacity(index.entries.count)
        // A hard link recorded under two paths is found by neither: the caller then clones it.
        for (place, entry) in index.entries.enumerated() where places.updateValue(place, forKey: entry.record.inode) != nil {
            places[entry.record.inode] = -1
        }
        return places
    }

    /// Whether the file already at `path` in the tree, inode `present`, holds the bytes of the current
    /// generation's file there, inode `wanted`, by the records of both: then it stays, with its own
    /// record. A file without a record of its own (an extra the manifest does not name) never stays.
    func holdsCurrentBytes(_ path: String, present: UInt64, wanted: UInt64) -> Bool {
        guard let own = previousByInode[present], own >= 0, previous.entries[own].path == path else { return false }
        if !sameEverywhere {
            guard let theirs = currentByInode[wanted], theirs >= 0, current.entries[theirs].path == path,
                  Self.sameBytes(previous.entries[own].record, current.entries[theirs].record) else { return false }
        }
        if !kept[own] { (kept[own], keptCount) = (true, keptCount + 1) }
        return true
    }

    /// Takes note of a clone made at `path` from the current generation's file.
    func cloned(_ path: String, source: stat, clone: stat) {
        guard let place = currentByInode[UInt64(source.st_ino)], place >= 0, case let entry = current.entries[place],
              entry.path == path, entry.record.describes(LocalItem(source)) else {
            clones[path] = .some(nil)
            return
        }
        clones[path] = FileProof(LocalItem(clone), crc32: entry.record.crc32, sha256: entry.record.sha256)
    }

    /// The index of `next/`: each clone's record, else the tree's own record where it stands (resumed,
    /// or kept), else the current generation's (a hard link to its file, or nothing there yet).
    var index: StateIndex {
        // Recycling kept every recorded file and made nothing: the tree's own index is the whole answer.
        if sameEverywhere, clones.isEmpty, keptCount == previous.entries.count { return previous }
        var entries: [StateIndex.Entry] = []
        entries.reserveCapacity(max(current.entries.count, previous.entries.count))
        let (a, b) = (current.entries, previous.entries)
        var (i, j) = (0, 0)
        while i < a.count || j < b.count {
            let order = i == a.count ? 1 : j == b.count ? -1 : PathOrder.compare(a[i].path, b[j].path)
            let path = order <= 0 ? a[i].path : b[j].path
            let theirs = order <= 0 ? a[i].record : nil
            let own = order >= 0 && (resumed || kept[j]) ? b[j].record : nil
            if order <= 0 { i += 1 }
            if order >= 0 { j += 1 }
            let clone = clones.isEmpty ? nil : clones[path]
            if let record = clone ?? own ?? theirs { entries.append(StateIndex.Entry(path: path, record: record)) }
        }
        return StateIndex(sorted: entries)
    }
}
