/// How a request's transfer ended, in the terms its decisions need and without libcurl's codes
/// (`TransportEnd(_:)` maps them in the binding): what may pass when asked again, what is final
/// for the URL, and what says that the server cannot be reached at all.
enum TransportEnd: Equatable {
    /// The transfer completed; the response says the rest.
    case ok
    /// Nothing listening at the address.
    case connectionRefused
    /// No address for the host name.
    case hostNotFound
    /// The server's certificate did not verify.
    case certificateRefused
    /// The TLS handshake did not complete.
    case tlsFailed
    /// The request cannot be made or was refused (scheme, URL, CA file, login): asking again cannot change it.
    case requestRefused
    /// The server announced more bytes than allowed (`CURLOPT_MAXFILESIZE_LARGE`).
    case tooLarge
    /// The write callback refused bytes.
    case writeRefused
    /// The progress callback stopped the transfer (a stall).
    case aborted
    /// The response ended before the length it announced.
    case partialBody
    /// The connection or the whole transfer took too long.
    case timedOut
    /// Anything else the transport reports: taken as transient.
    case other

    /// Whether asking the same URL again cannot change the answer.
    var isFinal: Bool { self == .certificateRefused || self == .requestRefused }

    /// Whether the server cannot be reached at all (no address, nothing listening): worth asking
    /// again when there is no other source, not before trying one.
    var isUnreachable: Bool { self == .connectionRefused || self == .hostNotFound }

    /// Whether the failure is about the server rather than the URL asked: it could not be reached
    /// or its TLS did not verify or complete. Only such a failure marks a whole host bad
    /// (`SourceHealth.Scope.host`): another path there fails alike.
    var isConnectionLevel: Bool { isUnreachable || self == .certificateRefused || self == .tlsFailed }
}
