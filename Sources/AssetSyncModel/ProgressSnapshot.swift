/// A moment of a pull, for whatever shows its progress.
package struct ProgressSnapshot: Sendable, Equatable {
    /// One download under way.
    package struct Transfer: Sendable, Equatable {
        package var path: String
        package var size: Int64
        /// Bytes in its partial now, resumed ones included.
        package var done: Int64

        package init(path: String, size: Int64, done: Int64) {
            self.path = path
            self.size = size
            self.done = done
        }
    }

    /// Downloads finished (committed or failed) and in all.
    package var filesDone: Int
    package var filesTotal: Int
    package var bytesDone: Int64
    package var bytesTotal: Int64
    package var transfers: [Transfer]

    package init(filesDone: Int, filesTotal: Int, bytesDone: Int64, bytesTotal: Int64, transfers: [Transfer]) {
        self.filesDone = filesDone
        self.filesTotal = filesTotal
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
        self.transfers = transfers
    }
}

/// Bytes per second over a sliding window of recent samples.
package struct RateMeter: Sendable {
    private var samples: [(time: Double, bytes: Int64)] = []
    package let window: Double

    package init(window: Double = 5) { self.window = window }

    package mutating func record(_ bytes: Int64, at time: Double) {
        samples.append((time, bytes))
        while let first = samples.first, time - first.time > window, samples.count > 2 { samples.removeFirst() }
    }

    /// Nil until two samples a tenth of a second apart exist.
    package var bytesPerSecond: Double? {
        guard let first = samples.first, let last = samples.last, last.time - first.time >= 0.1 else { return nil }
        return Double(max(0, last.bytes - first.bytes)) / (last.time - first.time)
    }
}
