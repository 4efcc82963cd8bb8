package import AssetSyncModel
import AssetSyncSystem

/// Fetches a manifest given as an http(s) URL, or its signature, into a destination's file, as a
/// document (`TransferKind.document`) through the transport and the decisions of every download:
/// the same protocols, TLS, redirects, credentials, retries and acceptance of an answer, with the
/// size limit as the write bound. When the destination keeps a copy from the same URL, the request
/// is conditional and a 304 keeps the copy. A stop request ends a fetch at once, waits for a retry
/// included.
package struct ManifestFetcher {
    package struct Fetched: Sendable {
        /// The file that holds the manifest now.
        package var path: String
        /// The server said 304: the cached copy is current.
        package var notModified: Bool
    }

    /// The manifest could not be fetched: the server or the network failed, or the file could not be written.
    package struct Failure: ExplainedError, CustomStringConvertible {
        package var description: String
        package var remedy: Remedy?
        /// The HTTP status of the final answer, when the server gave one that ended the fetch (404 says the file is not there).
        package var status: Int?
        /// The limit the answer went past, when that is what ended the fetch.
        package var sizeLimitExceeded: Int64?
        /// A refused request or a failed transfer; a failed local write is still reported as such,
        /// since nothing was downloaded either way.
        package var kind: ErrorKind { .remote }

        package init(description: String, remedy: Remedy? = nil, status: Int? = nil, sizeLimitExceeded: Int64? = nil) {
            self.description = description
            self.remedy = remedy
            self.status = status
            self.sizeLimitExceeded = sizeLimitExceeded
        }
    }

    private let options: TransferOptions
    /// The most bytes an answer may have: a manifest's limit, or less for a smaller file (a signature).
    private let sizeLimit: Int64
    /// Ends the fetch at once when requested (a signal, a cancelled task).
    private let stop: StopSource
    private let transport: any Transport
    /// Monotonic seconds: the stall timer and the retries' waits.
    private let clock: @Sendable () -> Double

    /// - Parameters:
    ///   - sizeLimit: the most bytes the file may have; a longer answer is cut off there and fails.
    ///   - stop: once requested, the fetch throws at once, waits for a retry included.
    ///   - transport: what carries the request: libcurl's, or a fake in unit tests.
    ///   - clock: what the stall timer and the retries' waits are measured by.
    package init(
        options: TransferOptions, sizeLimit: Int64 = Manifest.sizeLimit, stop: StopSource = .never,
        transport: any Transport = CurlTransport(), clock: @escaping @Sendable () -> Double = MonotonicClock.now
    ) {
        self.clock = clock
        self.options = options
        self.sizeLimit = sizeLimit
        self.stop = stop
        self.transport = transport
    }

    /// Fetches `url` into `destination` (conditionally, when it keeps a copy from the same URL).
    package func fetch(_ url: String, into destination: any ManifestDestination) throws(Failure) -> Fetched {
        let held = destination.cached(for: url)
        let document = Document(url: url, sizeLimit: sizeLimit, destination: destination)
        switch try run([document], held: held.map { [url: $0] } ?? [:])[0] {
        case .success(let fetched): return fetched
        case .failure(let failure): throw failure
        }
    }

    /// A document of a batch: where it is fetched from, the most bytes it may have, where it goes.
    package struct Document {
        package var url: String
        package var sizeLimit: Int64
        package var destination: any ManifestDestination

        package init(url: String, sizeLimit: Int64, destination: any ManifestDestination) {
            self.url = url
            self.sizeLimit = sizeLimit
            self.destination = destination
        }
    }

    /// Fetches every one of `documents` (distinct URLs, none conditional) in one run of the
    /// transport, `options.jobs` at a time over reused connections: the path each was kept at, or
    /// why it was not, in order. Throws only when the stop was requested.
    package func fetch(_ documents: [Document]) throws(Failure) -> [Result<String, Failure>] {
        try run(documents, held: [:]).map { $0.map(\.path) }
    }

    /// Fetches `documents` (conditionally those `held` has a copy of) in one run of the transport:
    /// what became of each, in order.
    private func run(_ documents: [Document], held: [String: CachedManifest]) throws(Failure) -> [Result<Fetched, Failure>] {
        let fetch = ManifestFetch(documents, held: held)
        // A document is named by its URL; its size is the bound, and no CRC-32 is known or checked.
        let requests = documents.map { document in
            TransferEngine.Request(
                entry: ManifestEntry(path: document.url, size: document.sizeLimit, crc32: 0), action: .new,
                sources: [DownloadSource(url: document.url)], kind: .document(held: held[document.url]))
        }
        let stop = self.stop
        let (ending, results) = transport.transfer(
            requests, options: options, delegate: fetch, wakeFD: stop.wakeFD, shouldStop: { stop.isRequested() }, clock: clock)
        if ending == .interrupted { throw Failure(description: "interrupted") }
        let outcomes = Dictionary(results.map { ($0.path, $0.outcome) }) { first, _ in first }
        return documents.map { document in
            if let fetched = fetch.kept[document.url] { return .success(fetched) }
            if let local = fetch.localFailure(document.url) { return .failure(local) }
            guard case .failed(let failure)? = outcomes[document.url] else { return .failure(Failure(description: "interrupted")) }
            return .failure(Failure(
                description: failure.reason, remedy: failure.remedy, status: failure.httpStatus, sizeLimitExceeded: failure.sizeLimitExceeded))
        }
    }
}
