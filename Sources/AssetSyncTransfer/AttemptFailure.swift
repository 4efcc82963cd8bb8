import AssetSyncSystem

/// What went wrong with one attempt, noted while its response arrives (in a callback) and
/// acted on when the attempt ends (`DownloadDecisions.conclude`).
enum AttemptFailure: Equatable {
    case httpStatus(Int)
    case wrongContentRange(String)
    /// A resume answered with the bytes of another version: the server ignores `If-Range` (moto's S3 server does).
    case otherVersion(asked: String, answered: String)
    case unexpectedStatus(Int)
    case bodyTooLong
    /// A 200 whose Content-Length is not the manifest's size.
    case wrongLength(Int64)
    case stalled(Liveness.Verdict)
    case local(SystemError)
    /// A segment's response that makes its file one stream: the server ignores `Range`, or the
    /// file changed between segments.
    case oneStream(String)
    /// A range answered with `multipart/byteranges` (several parts, each with its own head).
    case multipartRanges
}
