public import AssetSyncCache
import AssetSyncModel
import AssetSyncSystem
import CCurl
import CCurlShim
import Glibc

/// Fetches a manifest given as an http(s) URL, under the same rules as assets
/// (protocols, TLS, redirects, credentials), into a file. With a cache, it
/// keeps the last copy and its ETag/Last-Modified in `.assetsync/` and asks
/// again conditionally: a 304 reuses the copy. Transfers and backoff waits wake
/// on the same descriptor as the engine's, so a signal stops a fetch at once.
public final class ManifestFetcher {
    public struct Fetched: Sendable {
        /// The file that holds the manifest now.
        public var path: String
        /// The server said 304: the cached copy is current.
        public var notModified: Bool
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    package static let cacheName = "manifest"
    package static let metaName = "manifest.meta"

    private let easy = CurlEasy()
    private let multi: UnsafeMutableRawPointer
    private let options: TransferOptions
    private let wakeFD: Int32
    private let shouldStop: () -> Bool
    private var liveness: Liveness
    /// Why the progress callback stopped the current request, if it did.
    private var stall: Liveness.Verdict?
    private var head = ResponseHead()
    private var output: Int32 = -1
    private var received: Int64 = 0
    private var overflow = false
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    /// - Parameters:
    ///   - wakeFD: a descriptor that becomes readable when `shouldStop` may have turned true (-1: none).
    ///   - shouldStop: true once the fetch must end (a signal); it then throws at once.
    public init(options: TransferOptions, wakeFD: Int32 = -1, shouldStop: @escaping () -> Bool = { false }) {
        guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed: out of memory") }
        self.multi = multi
        self.options = options
        self.wakeFD = wakeFD
        self.shouldStop = shouldStop
        liveness = Liveness(silence: options.stallTimeout, minimumRate: options.speedLimit, window: options.speedTime, now: 0)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        easy.configureCommon(options)
        easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
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
        curl_multi_cleanup(multi)
        errorBuffer.deallocate()
    }

    /// Fetches `url` into `.assetsync/manifest` of `root` (conditionally, when the copy there came
    /// from the same URL), or into the file `temporaryPath` when there is no cache.
    public func fetch(_ url: String, cache root: CacheRoot?, temporaryPath: String? = nil) throws(Failure) -> Fetched {
        let meta = root.flatMap { Self.loadMeta(in: $0) }
        let conditional = meta?.url == url ? meta : nil
        var current = url
        var hops = 0
        var attempt = 0
        var sendCredentials = options.credentialScope.admits(url)
        while true {
            attempt += 1
            let target: String
            if let root {
                // Each attempt writes a fresh file; `keep` renames it into place, and whatever is left goes.
                do {
                    let temporary = try AtomicFile.createTemporary(
                        for: Self.cacheName, in: root.metadataFD, mode: 0o600, display: root.path + "/" + CacheRoot.metadataName)
                    output = temporary.fd
                    target = temporary.name
                } catch {
                    throw Failure(description: "cannot write the manifest: \(error)")
                }
            } else {
                target = temporaryPath ?? "manifest.download"
                output = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
                guard output >= 0 else { throw Failure(description: "cannot write \(target): \(SystemError("open").reason)") }
            }
            defer { if let root { unlinkat(root.metadataFD, target, 0) } }
            head = ResponseHead()
            received = 0
            overflow = false
            errorBuffer[0] = 0
            var headers = sendCredentials ? options.headers : []
            if let conditional, current == url {
                if let etag = conditional.etag { headers.append("If-None-Match: \(etag)") }
                if let modified = conditional.lastModified { headers.append("If-Modified-Since: \(modified)") }
            }
            easy.setHeaders(headers)
            easy.set(CURLOPT_URL, current)
            easy.set(CURLOPT_NETRC, sendCredentials && options.useNetrc ? Int(CURL_NETRC_OPTIONAL.rawValue) : Int(CURL_NETRC_IGNORED.rawValue))
            let performed = perform()
            guard let code = performed else {
                close(output)
                output = -1
                throw Failure(description: "interrupted")
            }
            let durable = fdatasync(output) == 0
            close(output)
            output = -1
            if overflow { throw Failure(description: "the manifest is larger than the \(ByteCount.human(Manifest.sizeLimit)) limit") }
            let status = head.status
            if code == CURLE_OK, (300..<400).contains(status), status != 304 {
                switch RedirectRule.follow(from: current, to: easy.string(CURLINFO_REDIRECT_URL), hop: hops + 1) {
                case .failure(let refusal): throw Failure(description: refusal.reason)
                case .success(let hop):
                    hops += 1
                    if !hop.sameOrigin { sendCredentials = false }
                    current = hop.url
                    attempt -= 1
                    continue
                }
            }
            if code == CURLE_OK, status == 304, conditional != nil, let root {
                return Fetched(path: root.path + "/.assetsync/" + Self.cacheName, notModified: true)
            }
            if code == CURLE_OK, status == 200 {
                guard durable else { throw Failure(description: "cannot write \(target): \(SystemError("fsync").reason)") }
                guard let root else { return Fetched(path: target, notModified: false) }
                try Self.keep(target: target, url: url, head: head, in: root)
                return Fetched(path: root.path + "/.assetsync/" + Self.cacheName, notModified: false)
            }
            let reason = code == CURLE_OK ? "HTTP \(status)"
                : stall.map(liveness.describe)
                ?? QuotedValue.escapingControls(errorBuffer[0] != 0 ? String(cString: errorBuffer) : CurlEasy.describe(code))
            let transient = code != CURLE_OK ? code != CURLE_PEER_FAILED_VERIFICATION && code != CURLE_UNSUPPORTED_PROTOCOL
                : status == 408 || status == 429 || status >= 500
            guard transient, attempt <= options.retries else { throw Failure(description: reason) }
            let delay = max(
                min(options.maximumRetryDelay, options.retryBaseDelay * Double(1 << min(attempt - 1, 20))) * Double.random(in: 0.5...1),
                min(head.retryAfterSeconds ?? 0, options.maximumRetryDelay * 5))
            guard wait(delay) else { throw Failure(description: "interrupted") }
        }
    }

    /// One request on the multi handle, polled with the wake descriptor; nil when stopped.
    private func perform() -> CURLcode? {
        liveness = Liveness(
            silence: options.stallTimeout, minimumRate: options.speedLimit, window: options.speedTime, now: MonotonicClock.now())
        stall = nil
        curl_multi_add_handle(multi, easy.handle)
        defer { curl_multi_remove_handle(multi, easy.handle) }
        while !shouldStop() {
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                if message.pointee.msg == CURLMSG_DONE { return message.pointee.data.result }
            }
            var wake = curl_waitfd(fd: wakeFD, events: Int16(CURL_WAIT_POLLIN), revents: 0)
            curl_multi_poll(multi, &wake, wakeFD >= 0 ? 1 : 0, 1000, nil)
        }
        return nil
    }

    /// Sleeps `seconds` unless stopped first; false when stopped.
    private func wait(_ seconds: Double) -> Bool {
        let deadline = MonotonicClock.now() + seconds
        while !shouldStop() {
            let left = deadline - MonotonicClock.now()
            guard left > 0 else { return true }
            var wake = pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)
            _ = poll(&wake, 1, Int32(min(1000, (left * 1000).rounded(.up))))
        }
        return false
    }

    private func receive(_ buffer: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        liveness.heard(Int64(count), at: MonotonicClock.now())
        guard head.status == 200 else { return count }  // a redirect's or an error's body is not the manifest
        received += Int64(count)
        if received > Manifest.sizeLimit {
            overflow = true
            return 0
        }
        var done = 0
        while done < count {
            let wrote = write(output, buffer! + done, count - done)
            if wrote < 0 {
                if errno == EINTR { continue }
                return 0
            }
            done += wrote
        }
        return count
    }

    /// Where the cached copy came from, and its validators.
    package struct Meta: Equatable {
        package var url: String
        package var etag: String?
        package var lastModified: String?
    }

    /// The most bytes `manifest.meta` may have: a URL and two validators fit many times over.
    package static let metaSizeLimit = 64 << 10

    /// The meta of the cached copy, or nil when either is missing, not a regular file, or torn.
    package static func loadMeta(in root: CacheRoot) -> Meta? {
        guard let bytes = AtomicFile.read(metaName, in: root.metadataFD, limit: metaSizeLimit) else { return nil }
        var fields: [String: String] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        // A 304 makes the copy the manifest, so it must be a regular file (a FIFO there would block its reader).
        var status = stat()
        guard let url = fields["url"], fstatat(root.metadataFD, cacheName, &status, AT_SYMLINK_NOFOLLOW) == 0,
              status.st_mode & S_IFMT == S_IFREG
        else { return nil }
        return Meta(url: url, etag: fields["etag"], lastModified: fields["last-modified"])
    }

    /// Moves the fresh copy into place, then writes its meta (so a crash between leaves an old ETag: a 200 next time).
    private static func keep(target: String, url: String, head: ResponseHead, in root: CacheRoot) throws(Failure) {
        var text = "url \(url)\n"
        if let etag = head.etag { text += "etag \(etag)\n" }
        if let modified = head.lastModified { text += "last-modified \(modified)\n" }
        let display = root.path + "/" + CacheRoot.metadataName
        do throws(SystemError) {
            guard renameat(root.metadataFD, target, root.metadataFD, cacheName) == 0 else { throw SystemError("rename", path: display + "/" + cacheName) }
            try AtomicFile.replace(metaName, in: root.metadataFD, with: Array(text.utf8), display: display)
        } catch {
            throw Failure(description: "cannot keep the manifest: \(error)")
        }
    }
}
