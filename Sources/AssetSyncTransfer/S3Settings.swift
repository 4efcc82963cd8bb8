package import AssetSyncModel
import AssetSyncSystem

/// Where an S3-compatible store is and how to sign for it, found as the AWS tools find it: the
/// environment first (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`,
/// `AWS_REGION`, `AWS_DEFAULT_REGION`, `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`), then the profile
/// (`AWS_PROFILE`, else `default`) in the shared credentials file and the config file
/// (`AWS_SHARED_CREDENTIALS_FILE` and `AWS_CONFIG_FILE`, else `~/.aws/credentials` and
/// `~/.aws/config`; in the config file a profile is `[profile NAME]`, the default `[default]`).
/// Command-line options, applied by the caller, override all of it.
package struct S3Settings: Equatable, Sendable {
    /// Nil when no credentials were found: requests then go unsigned, as to a public bucket.
    package var credentials: AWSCredentials?
    /// Nil when none was set; the caller decides (AWS's default is `us-east-1`).
    package var region: String?
    /// The store's endpoint, as `https://host[:port]`; nil for AWS's own.
    package var endpoint: String?
    package var addressingStyle = S3AddressingStyle.auto
    /// The profile read.
    package var profile: String

    /// Settings that cannot be used: a profile named that neither file has, half a key pair, a style not known.
    package struct Failure: ExplainedError, CustomStringConvertible, Equatable {
        package var description: String
        package var kind: ErrorKind { .invalidInput }
    }

    /// The store `request` describes: the values it gives, over those of its environment and of the
    /// profile it or the environment names (`profile` stands for `AWS_PROFILE`).
    package static func access(for request: ObjectStorageRequest) throws(Failure) -> ObjectStoreAccess {
        var environment = request.environment
        if let profile = request.profile { environment["AWS_PROFILE"] = profile }
        let settings = try resolve(environment: environment)
        let endpoint = request.endpoint ?? settings.endpoint
        if let endpoint {
            let parts = try? URLRules.parse(endpoint, field: "endpoint")
            guard let parts, parts.scheme != "s3", parts.rest.isEmpty else {
                throw Failure(description: "the S3 endpoint must be an http or https URL with no query, not \(QuotedValue.quote(endpoint))")
            }
        }
        return ObjectStoreAccess(
            endpoint: endpoint, region: request.region ?? settings.region ?? "us-east-1",
            addressingStyle: request.addressingStyle ?? settings.addressingStyle, credentials: request.credentials ?? settings.credentials)
    }

    /// Resolves the settings from `environment` and the shared files on disk.
    package static func resolve(environment: [String: String]) throws(Failure) -> S3Settings {
        try resolve(environment: environment, read: readSharedFile)
    }

    /// Resolves the settings from `environment` and the files `read` returns (nil: no such file).
    static func resolve(environment: [String: String], read: (String) throws(Failure) -> String?) throws(Failure) -> S3Settings {
        func set(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let home = set("HOME") ?? ""
        func expanded(_ path: String) -> String { path.hasPrefix("~/") ? home + path.dropFirst() : path }
        let configPath = expanded(set("AWS_CONFIG_FILE") ?? "~/.aws/config")
        let credentialsPath = expanded(set("AWS_SHARED_CREDENTIALS_FILE") ?? "~/.aws/credentials")
        func file(_ path: String) throws(Failure) -> AWSSharedFile? { try read(path).map(AWSSharedFile.init) }
        let profile = set("AWS_PROFILE") ?? "default"
        let config = try file(configPath)
        let shared = try file(credentialsPath)
        let configSection = config?.sections[profile == "default" ? "default" : "profile \(profile)"]
            ?? (profile == "default" ? config?.sections["profile default"] : nil)
        let credentialsSection = shared?.sections[profile]
        if set("AWS_PROFILE") != nil, configSection == nil, credentialsSection == nil {
            throw Failure(description: """
                the AWS profile \(QuotedValue.quote(profile)) is in neither \
                \(QuotedValue.quote(credentialsPath)) nor \(QuotedValue.quote(configPath))
                """)
        }

        var settings = S3Settings(profile: profile)
        settings.credentials = try credentials(
            from: [
                ("the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)",
                 set("AWS_ACCESS_KEY_ID"), set("AWS_SECRET_ACCESS_KEY"), set("AWS_SESSION_TOKEN")),
                ("profile \(QuotedValue.quote(profile)) in \(QuotedValue.quote(credentialsPath))",
                 credentialsSection?.values["aws_access_key_id"], credentialsSection?.values["aws_secret_access_key"],
                 credentialsSection?.values["aws_session_token"]),
                ("profile \(QuotedValue.quote(profile)) in \(QuotedValue.quote(configPath))",
                 configSection?.values["aws_access_key_id"], configSection?.values["aws_secret_access_key"],
                 configSection?.values["aws_session_token"]),
            ])
        settings.region = set("AWS_REGION") ?? set("AWS_DEFAULT_REGION") ?? configSection?.values["region"]
        settings.endpoint = set("AWS_ENDPOINT_URL_S3") ?? set("AWS_ENDPOINT_URL")
            ?? configSection?.nested["s3"]?["endpoint_url"] ?? configSection?.values["endpoint_url"]
        if let style = configSection?.nested["s3"]?["addressing_style"] {
            guard let known = S3AddressingStyle(rawValue: style) else {
                throw Failure(description: """
                    s3's addressing_style in profile \(QuotedValue.quote(profile)) of \(QuotedValue.quote(configPath)) \
                    must be auto, path or virtual, not \(QuotedValue.quote(style))
                    """)
            }
            settings.addressingStyle = known
        }
        return settings
    }

    /// A shared file's text; nil when there is none. Links are followed (dotfiles are often links).
    private static func readSharedFile(_ path: String) throws(Failure) -> String? {
        let found: RegularFileRead
        do {
            found = try RegularFileRead.read(path, limit: 1 << 20, followingLinks: true, display: path)
        } catch {
            throw Failure(description: "cannot read the AWS settings file \(QuotedValue.quote(path)): \(error.description)")
        }
        switch found {
        case .bytes(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .notRead(.missing): return nil
        case .notRead(let reason): throw Failure(description: "the AWS settings file \(QuotedValue.quote(path)) \(reason.words)")
        }
    }

    /// The first place that has a key: both halves, or a failure naming the place that has one half.
    private static func credentials(
        from places: [(name: String, key: String?, secret: String?, token: String?)]
    ) throws(Failure) -> AWSCredentials? {
        for place in places where place.key != nil || place.secret != nil {
            guard let key = place.key, let secret = place.secret else {
                throw Failure(description: "\(place.name) has \(place.key == nil ? "a secret key but no access key id" : "an access key id but no secret key")")
            }
            return AWSCredentials(accessKeyID: key, secretAccessKey: secret, sessionToken: place.token)
        }
        return nil
    }
}
