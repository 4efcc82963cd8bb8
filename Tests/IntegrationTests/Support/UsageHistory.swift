/// The peak memory and open descriptors of each process of one kind (say, every faulty pull) over a
/// long run, and the check that they do not grow with time: the processes of the last third of the
/// runs against those of the first third. Each process starts afresh, so what can grow from run to
/// run is what a process takes from the cache it finds (state index, partials, directories): a
/// leak that outlives the process.
struct UsageHistory {
    struct Entry {
        var run: Int
        /// Requests the server received from the process.
        var requests: Int
        var peakResidentBytes: Int
        var peakDescriptors: Int
    }

    /// How much more the last third may use than the first before it counts as growth. A busy
    /// machine's allocator and page faults move the peak RSS by a few MiB from run to run, and the
    /// descriptors held by a group commit follow the number of small files a run happens to prove
    /// at once; a leak of 1 MiB or 2 descriptors a run still shows over 30 runs.
    static let residentRatio = 1.5
    static let residentSlack = 4 << 20
    static let descriptorRatio = 1.25
    static let descriptorSlack = 16
    /// Fewer processes a third than this are too few to compare.
    static let minimumThird = 3

    /// The kind of process, for messages ("pull", "rerun", "verify").
    let label: String
    private(set) var entries: [Entry] = []

    init(label: String, entries: [Entry] = []) {
        self.label = label
        self.entries = entries
    }

    mutating func add(_ entry: Entry) { entries.append(entry) }

    /// Whether there are enough processes for `violations` to compare thirds.
    var comparable: Bool { entries.count / 3 >= Self.minimumThird }

    /// Growth beyond the margins, as readable lines (empty when there is none, or when not `comparable`).
    func violations() -> [String] {
        guard comparable else { return [] }
        let (first, last) = thirds
        var found: [String] = []
        if Double(last.resident) > Double(first.resident) * Self.residentRatio + Double(Self.residentSlack) {
            found.append("\(label): peak RSS grew from \(Self.mebibytes(first.resident)) (first third of the runs) to "
                + "\(Self.mebibytes(last.resident)) (last third), more than \(Self.residentRatio)x + \(Self.mebibytes(Self.residentSlack))")
        }
        if Double(last.descriptors) > Double(first.descriptors) * Self.descriptorRatio + Double(Self.descriptorSlack) {
            found.append("\(label): peak open descriptors grew from \(first.descriptors) (first third of the runs) to "
                + "\(last.descriptors) (last third), more than \(Self.descriptorRatio)x + \(Self.descriptorSlack)")
        }
        return found
    }

    /// The peaks of the first and the last third of the runs.
    private var thirds: (first: (resident: Int, descriptors: Int), last: (resident: Int, descriptors: Int)) {
        let third = max(1, entries.count / 3)
        let peaks = { (slice: ArraySlice<Entry>) in
            (slice.map(\.peakResidentBytes).max() ?? 0, slice.map(\.peakDescriptors).max() ?? 0)
        }
        return (peaks(entries.prefix(third)), peaks(entries.suffix(third)))
    }

    /// The peaks of the first and the last third of the runs, and of all, on one line.
    var summary: String {
        let (first, last) = thirds
        let all = (entries.map(\.peakResidentBytes).max() ?? 0, entries.map(\.peakDescriptors).max() ?? 0)
        return "\(label) (\(entries.count) processes): peak RSS / open descriptors: first third "
            + "\(Self.mebibytes(first.resident)) / \(first.descriptors), last third \(Self.mebibytes(last.resident)) / "
            + "\(last.descriptors), all \(Self.mebibytes(all.0)) / \(all.1)"
            + (comparable ? "" : " (too few runs to compare the thirds)")
    }

    static func mebibytes(_ bytes: Int) -> String {
        let value = Double(bytes) / Double(1 << 20)
        return "\((value * 10).rounded() / 10) MiB"
    }
}
