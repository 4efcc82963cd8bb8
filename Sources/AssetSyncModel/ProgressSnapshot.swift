/// A moment of a pull, for whatever shows its progress.
public struct ProgressSnapshot: Sendable, Equatable {
    /// One download under way.
    public struct Transfer: Sendable, Equatable {
        public var path: String
        public var size: Int64
        /// Bytes in its partial now, resumed ones included.
        public var done: Int64

        public init(path: String, size: Int64, done: Int64) {
            self.path = path
            self.size = size
            self.done = done
        }
    }

    /// Downloads finished (committed or failed) and in all.
    public var filesDone: Int
    public var filesTotal: Int
    public var bytesDone: Int64
    public var bytesTotal: Int64
    public var transfers: [Transfer]

    public init(filesDone: Int, filesTotal: Int, bytesDone: Int64, bytesTotal: Int64, transfers: [Transfer]) {
        self.filesDone = filesDone
        self.filesTotal = filesTotal
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
        self.transfers = transfers
    }
}

/// Bytes per second over a sliding window of recent samples.
public struct RateMeter: Sendable {
    private var samples: [(time: Double, bytes: Int64)] = []
    public let window: Double

    public init(window: Double = 5) { self.window = window }

    public mutating func record(_ bytes: Int64, at time: Double) {
        samples.append((time, bytes))
        while let first = samples.first, time - first.time > window, samples.count > 2 { samples.removeFirst() }
    }

    /// Nil until two samples a tenth of a second apart exist.
    public var bytesPerSecond: Double? {
        guard let first = samples.first, let last = samples.last, last.time - first.time >= 0.1 else { return nil }
        return Double(max(0, last.bytes - first.bytes)) / (last.time - first.time)
    }
}
