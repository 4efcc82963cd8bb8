package import AssetSyncModel
import AssetSyncSystem
import CCurl
import CCurlShim
import Glibc

/// Fetches a manifest given as an http(s) URL, under the same rules as assets
/// (protocols, TLS, redirects, credentials), into a destination's file. When the
/// destination keeps a copy from the same URL, the request is conditional and a
/// 304 reuses the copy. Transfers and backoff waits wake on the stop source's
/// descriptor, so a stop request ends a fetch at once.
package final class ManifestFetcher {
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

    private let easy = CurlEasy()
    private let multi = CurlMulti()
    private let options: TransferOptions
    /// Ends the fetch at once when requested (a signal, a cancelled task).
    private let stop: StopSource
    private var liveness: Liveness
    /// Why the progress callback stopped the current request, if it did.
    private var stall: Liveness.Verdict?
    private var head = ResponseHead()
    private var output: Int32 = -1
    private var received: Int64 = 0
    private var overflow = false
    /// The most bytes an answer may have: a manifest's limit, or less for a smaller file (a signature).
    private let sizeLimit: Int64

    /// - Parameters:
    ///   - sizeLimit: the most bytes the file may have; a longer answer is cut off there and fails.
    ///   - stop: once requested, the fetch throws at once, waits for a retry included.
    package init(
        options: TransferOptions, sizeLimit: Int64 = Manifest.sizeLimit, stop: StopSource = .never
    ) {
        self.options = options
        self.sizeLimit = sizeLimit
        self.stop = stop
        liveness = Liveness(silence: options.stallTimeout, minimumRate: options.speedLimit, window: options.speedTime, now: 0)
        easy.configureCommon(options)
        let owner = Unmanaged.passUnretained(self).toOpaque()
        easy.set(CURLOPT_NOPROGRESS, false)
        easy.set(CURLOPT_XFERINFODATA, pointer: owner)
        easy.setProgressCallback { owner, _, _, _, _ in
            let fetcher = Unmanaged<ManifestFetcher>.fromOpaque(owner!).takeUnretainedValue()
            fetcher.stall = fetcher.liveness.check(at: MonotonicClock.now())
            return fetcher.stall == nil ? 0 : 1
        }
        easy.set(CURLOPT_WRITEDATA, pointer: owner)
        easy.set(CURLOPT_WRITEFUNCTION, callback: { buffer, size, count, owner in
            Unmanaged<ManifestFetcher>.fromOpaque(owner!).takeUnretainedValue().receive(buffer, size * count)
        })
        easy.set(CURLOPT_HEADERDATA, pointer: owner)
        easy.set(CURLOPT_HEADERFUNCTION, callback: { buffer, size, count, owner in
            let line = String(decoding: UnsafeRawBufferPointer(start: buffer, count: size * count), as: UTF8.self)
            let fetcher = Unmanaged<ManifestFetcher>.fromOpaque(owner!).takeUnretainedValue()
            fetcher.head.take(Substring(line))
            fetcher.liveness.heard(at: MonotonicClock.now())
            return size * count
        })
    }

    deinit {
        if output >= 0 { close(output) }
    }

    /// Fetches `url` into `destination` (conditionally, when it keeps a copy from the same URL).
    package func fetch(_ url: String, into destination: any ManifestDestination) throws(Failure) -> Fetched {
        let conditional = destination.cached(for: url)
        var route = RequestRoute(url, scope: options.credentialScope)
        var attempt = 0
        while true {
            attempt += 1
            // Each attempt writes a fresh file; the destination keeps it, or drops whatever is left.
            output = try destination.openAttempt()
            defer { destination.dropAttempt() }
            head = ResponseHead()
            received = 0
            overflow = false
            easy.clearError()
            var headers: [String] = []
            if let conditional, route.url == url {
                if let etag = conditional.etag { headers.append("If-None-Match: \(etag)") }
                if let modified = conditional.lastModified { headers.append("If-Modified-Since: \(modified)") }
            }
            easy.setRequest(route, options: options, extraHeaders: headers)
            let performed = perform()
            guard let code = performed else {
                close(output)
                output = -1
                throw Failure(description: "interrupted")
            }
            let durable = fdatasync(output) == 0
            close(output)
            output = -1
            if overflow {
                throw Failure(description: "the answer is larger than the \(ByteCount.human(sizeLimit)) limit for this file", sizeLimitExceeded: sizeLimit)
            }
            let status = head.status
            if code == CURLE_OK, (300..<400).contains(status), status != 304 {
                if let refusal = route.follow(easy.string(CURLINFO_REDIRECT_URL)) { throw Failure(description: refusal.reason, remedy: refusal.remedy) }
                attempt -= 1
                continue
            }
            if code == CURLE_OK, status == 304, let conditional {
                return Fetched(path: conditional.path, notModified: true)
            }
            if code == CURLE_OK, status == 200 {
                guard durable else { throw Failure(description: "cannot write \(destination.attemptName): \(SystemError("fsync").reason)") }
                let path = try destination.keepAttempt(url: url, etag: head.etag, lastModified: head.lastModified)
                return Fetched(path: path, notModified: false)
            }
            let reason = code == CURLE_OK ? "HTTP \(status)"
                : stall.map(liveness.describe)
                ?? easy.describe(code)
            let transient = code != CURLE_OK ? !TransportEnd(code).isFinal : RetryPolicy.isTransient(status: status)
            guard transient, attempt <= options.retries else { throw Failure(description: reason, status: code == CURLE_OK ? status : nil) }
            guard wait(RetryPolicy(options).delay(beforeRetry: attempt, retryAfter: head.retryAfterSeconds)) else {
                throw Failure(description: "interrupted")
            }
        }
    }

    /// One request on the multi handle, polled with the wake descriptor; nil when stopped.
    private func perform() -> CURLcode? {
        liveness = Liveness(
            silence: options.stallTimeout, minimumRate: options.speedLimit, window: options.speedTime, now: MonotonicClock.now())
        stall = nil
        multi.add(easy)
        defer { multi.remove(easy) }
        while !stop.isRequested() {
            multi.perform()
            if let (_, code) = multi.nextFinished() { return code }
            multi.poll(wakeFD: stop.wakeFD, timeout: 1000)
        }
        return nil
    }

    /// Sleeps `seconds` unless stopped first; false when stopped.
    private func wait(_ seconds: Double) -> Bool { stop.sleep(seconds) }

    private func receive(_ buffer: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        liveness.heard(Int64(count), at: MonotonicClock.now())
        guard head.status == 200 else { return count }  // a redirect's or an error's body is not the manifest
        received += Int64(count)
        if received > sizeLimit {
            overflow = true
            return 0
        }
        do {
            try FileDescriptor(output).writeAll(UnsafeRawBufferPointer(start: buffer, count: count))
            return count
        } catch {
            return 0  // a short count makes libcurl end the transfer with a write error
        }
    }
}
