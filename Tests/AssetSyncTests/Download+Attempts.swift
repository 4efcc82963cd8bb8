import CCurl
@testable import AssetSyncModel
@testable import AssetSyncTransfer

/// What follows one attempt, as a line a test can compare.
extension Download.Next {
    var summary: String {
        switch self {
        case .retry(_, let reason): "retry: " + reason
        case .proven: "proven"
        case .done(let result): "done: \(result.outcome)"
        case .stopRun(let result): "stop: \(result.outcome)"
        case .segmentDone: "segment done"
        case .oneStream(let reason, let fresh): "one stream\(fresh ? " (fresh)" : ""): " + reason
        }
    }

    var delay: Double? {
        if case .retry(let after, _) = self { return after }
        return nil
    }
}

extension Download {
    /// Plays one attempt as libcurl would: the head's lines, then the body through the write
    /// callback (a refused write ends the transfer with CURLE_WRITE_ERROR), then `code`.
    func play(_ head: [String], body: [UInt8] = [], code: CURLcode = CURLE_OK) -> Download.Next {
        complete(deliver(head, body: body) ? code : CURLE_WRITE_ERROR)
    }

    /// Starts an attempt and delivers `head` and `body` to the callbacks; false when the write callback refused the body.
    func deliver(_ head: [String], body: [UInt8]) -> Bool {
        prepareAttempt()
        hear(head)
        return write(body)
    }

    /// Gives the header callback `head`'s lines and the empty line that ends them.
    func hear(_ head: [String]) {
        for line in head + [""] { receiveHeader(Substring(line + "\r\n")) }
    }

    /// Gives the write callback `bytes`; false when it refused them.
    func write(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return true }
        var bytes = bytes
        return bytes.withUnsafeMutableBytes { receive($0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count) } == bytes.count
    }
}
