@testable import AssetSyncModel
@testable import AssetSyncTransfer

/// libFuzzer's entry: the text a server controls, line by line. The first line is the URL being
/// fetched, the second a redirect's Location, the rest response-head lines. It runs the redirect
/// rules, the URL rules and the header parser (validators, Content-Range, Retry-After) over them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let current = lines.first.map(String.init) ?? ""
    let location = lines.count > 1 ? String(lines[1]) : nil
    if case .success(let hop) = RedirectRule.follow(from: current, to: location, hop: 1) {
        precondition(hop.url.lowercased().hasPrefix("http"), "a followed redirect that is not http or https")
    }
    _ = RedirectRule.origin(of: current)
    _ = try? URLRules.check(current, field: "url")
    if let base = location { _ = try? URLRules.resolve(current, against: base, field: "url") }
    var head = ResponseHead()
    for line in lines.dropFirst(2) { head.take(line + "\r\n") }
    _ = head.range
    _ = head.retryAfterSeconds
    if let etag = head.etag { precondition(ResponseHead.validator(etag) == etag, "a kept ETag is not a valid validator") }
    return 0
}
