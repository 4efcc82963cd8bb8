import AssetSyncModel

/// The layers' errors in the words of the one public error.
extension AssetSyncError {
    static let cancelled = AssetSyncError(
        kind: .cancelled, message: "cancelled", remedy: "partial downloads are kept in the destination, and the next pull resumes them")

    static func invalid(_ message: String) -> AssetSyncError { AssetSyncError(kind: .invalidInput, message: message) }

    init(_ kind: ErrorKind, _ message: String, remedy: String? = nil, cause: String? = nil) {
        self.init(kind: Kind(kind), message: message, remedy: remedy, cause: cause)
    }

    /// A layer's error, its message after `context` ("cannot open the destination: …").
    init(_ error: some ExplainedError, _ context: String?) {
        let message = context.map { $0 + ": " + error.message } ?? error.message
        self.init(error.kind, message, remedy: error.remedy.map(Self.words), cause: error.cause.map { "\($0)" })
    }

    /// Why a request could not go on, in the library's words.
    init(_ failure: PullRunFailure) {
        switch failure {
        case .keyFile(let file, let problem):
            let why = switch problem {
            case .unreadable(let reason): "cannot be read: \(reason)"
            case .notRead(let words, _): words
            case .malformed(let problem): "holds no public key: " + problem
            }
            self = .invalid("the trusted key file \(QuotedValue.quote(file)) \(why)")
        case .unsignable(let name):
            self = .invalid("the manifest \(name) is given as bytes, with no signature beside it: trusted keys need a file or a URL")
        case .manifest(let error): self.init(error, nil)
        case .manifestUnreadable(let name, let reason): self.init(.invalidInput, "\(name): cannot read the manifest: \(reason)")
        case .manifestTooLarge(let name): self.init(.invalidInput, "\(name): the manifest is larger than its limit")
        case .signatureUnreadable(let path, let reason, let kind): self.init(kind, "cannot read the signature \(path): \(reason)")
        case .untrusted(let refusal, let name):
            self.init(.untrusted, "the manifest \(name) is not trustworthy: \(refusal.description); no file was downloaded or changed")
        case .versionUnreadable(let error): self.init(error, "cannot read the accepted manifest version")
        case .versionUnrecorded(let error): self.init(error, "cannot record the accepted manifest version")
        case .fetch(let url, let file, let error):
            self.init(error, file == .manifest ? "cannot fetch \(url)" : "cannot fetch the manifest's signature \(url)")
        case .destination(let dest, let problem), .storeUnplaceable(let dest, let problem):
            self.init(problem.kind, "destination \(QuotedValue.quote(dest)): \(problem.message)")
        case .destinationUnopenable(let error, _): self.init(error, "cannot open the destination")
        case .storeUnopenable(let dest, let error): self.init(error, "cannot open the generations of \(QuotedValue.quote(dest))")
        case .generations(let error), .rollback(let error): self.init(error, nil)
        case .keepWithoutGenerations: self = .invalid("generations to keep were given for a destination that is not in generations")
        case .lockHeld(let error, _), .lockFailed(let error): self.init(error, "cannot lock the destination")
        case .reuseSource(let path): self = .invalid("reuse source \(QuotedValue.quote(path)) is not a directory that can be opened")
        case .cannotStart(let error): self.init(error, nil)
        case .objectStore(let error): self.init(error, "the manifest names an S3 store whose settings cannot be used")
        case .notEnoughSpace(let shortfall, let root):
            self.init(
                .localIO, "not enough free space in \(root): the pull needs \(ByteCount.human(shortfall.needed)), "
                    + "but \(ByteCount.human(shortfall.free)) is free; nothing was downloaded",
                remedy: "free some space and pull again")
        case .deleteInUnmanagedDirectory(let root):
            self.init(
                .invalidInput, "removing extras changes nothing in \(root): no earlier pull completed there, so it may not be a directory assetsync manages",
                remedy: "pull once keeping extras first")
        case .tooManyDeletions(let count, let maximum):
            self.init(
                .invalidInput, "removing extras would remove \(count) files, more than the \(maximum) allowed; nothing was changed",
                remedy: "check that this is the right manifest, or allow \(count)")
        case .scan(let error): self.init(error, "cannot scan the destination")
        case .record(let error): self.init(error, "cannot record what was proven")
        case .notInGenerations(let dest): self = .invalid("\(QuotedValue.quote(dest)) is not in generations, so it has none to go back to")
        case .interrupted: self = .cancelled
        }
    }

    /// Why a directory could not be described, or a manifest signed, in the library's words.
    init(_ failure: PublishFailure) {
        switch failure {
        case .notADirectory(let path): self = .invalid("\(QuotedValue.quote(path)) is not a directory")
        case .invalidBase(let error): self.init(error, "the base URL")
        case .unreadable(let directory, let error): self.init(error, "cannot read \(QuotedValue.quote(directory))")
        case .unrepresentable(let directory, let error):
            self.init(error.kind, error.message, remedy: "rename it, or move it out of \(QuotedValue.quote(directory))")
        case .unwritable(let path, let error): self.init(error, "cannot write \(QuotedValue.quote(path))")
        case .manifestUnreadable(let name, let reason): self.init(.invalidInput, "\(name): cannot read the manifest: \(reason)")
        case .manifestTooLarge(let name): self.init(.invalidInput, "\(name): the manifest is larger than its limit")
        case .manifest(let error): self.init(error, nil)
        case .keyUnreadable(let path, let reason): self = .invalid("cannot read the secret key \(QuotedValue.quote(path)): \(reason)")
        case .keyNotRead(let path, let words, _): self = .invalid("the secret key \(QuotedValue.quote(path)) \(words)")
        case .keyInvalid(let path, let reason): self = .invalid("the secret key \(QuotedValue.quote(path)): \(reason)")
        case .bucket(let location, let error): self.init(error, "cannot describe \(location)")
        case .objectStore(let error): self.init(error, "the bucket's store settings cannot be used")
        case .interrupted: self = .cancelled
        }
    }

    private static func words(_ remedy: Remedy) -> String {
        switch remedy {
        case .deleteClearsObstruction(let onlyWhenEmpty):
            onlyWhenEmpty ? "removing extras clears it when the directory holds no files" : "removing extras clears it"
        case .credentialsOutsideTheURL:
            "give credentials as a request header or in a netrc file, never in a URL"
        }
    }
}

extension AssetSyncError.Kind {
    init(_ kind: ErrorKind) {
        switch kind {
        case .invalidInput: self = .invalidInput
        case .remote: self = .remote
        case .localIO: self = .localIO
        case .lockHeld: self = .lockHeld
        case .untrusted: self = .untrusted
        }
    }
}
