import Foundation
import Testing
import TestSupport
import AssetSyncModel
@testable import AssetSyncTransfer

/// Credentials, region, endpoint and addressing style found as the AWS tools find them: the
/// environment over the profile's credentials file over its config file.
@Suite struct S3SettingsTests {
    static let config = """
        # the AWS CLI's own layout
        [default]
        region = eu-central-1

        [profile minio]
        region=us-east-1
        aws_access_key_id = CONFIGKEY
        aws_secret_access_key = CONFIGSECRET
        s3 =
            addressing_style = path
            endpoint_url = http://127.0.0.1:9000
        [profile r2]
        endpoint_url = https://abc.r2.cloudflarestorage.com
        ; R2 takes any region name
        region = auto
        """
    static let credentials = """
        [default]
        aws_access_key_id = AKDEFAULT
        aws_secret_access_key = SKDEFAULT
        [r2]
        aws_access_key_id=AKR2
        aws_secret_access_key=SK/R2+=
        aws_session_token = TOKEN
        """
    static let files = ["/home/u/.aws/config": config, "/home/u/.aws/credentials": credentials]

    static func resolve(_ environment: [String: String], files: [String: String] = files) throws(S3Settings.Failure) -> S3Settings {
        try S3Settings.resolve(environment: ["HOME": "/home/u"].merging(environment) { $1 }, read: { files[$0] })
    }

    @Test func theDefaultProfileComesFromBothFiles() throws {
        let settings = try Self.resolve([:])
        #expect(settings.profile == "default")
        #expect(settings.credentials == .init(accessKeyID: "AKDEFAULT", secretAccessKey: "SKDEFAULT"))
        #expect(settings.region == "eu-central-1")
        #expect(settings.endpoint == nil && settings.addressingStyle == .auto)
    }

    @Test func aNamedProfileReadsItsConfigSectionAndItsNestedS3Settings() throws {
        let settings = try Self.resolve(["AWS_PROFILE": "minio"])
        #expect(settings.credentials == .init(accessKeyID: "CONFIGKEY", secretAccessKey: "CONFIGSECRET"))
        #expect(settings.region == "us-east-1")
        #expect(settings.endpoint == "http://127.0.0.1:9000" && settings.addressingStyle == .path)
    }

    @Test func theCredentialsFileWinsOverTheConfigFileAndKeepsTheSessionToken() throws {
        let settings = try Self.resolve(["AWS_PROFILE": "r2"])
        #expect(settings.credentials == .init(accessKeyID: "AKR2", secretAccessKey: "SK/R2+=", sessionToken: "TOKEN"))
        #expect(settings.endpoint == "https://abc.r2.cloudflarestorage.com" && settings.region == "auto")
    }

    @Test func theEnvironmentWinsOverEveryFile() throws {
        let settings = try Self.resolve([
            "AWS_PROFILE": "minio", "AWS_ACCESS_KEY_ID": "ENVKEY", "AWS_SECRET_ACCESS_KEY": "ENVSECRET", "AWS_SESSION_TOKEN": "ENVTOKEN",
            "AWS_DEFAULT_REGION": "ap-south-1", "AWS_ENDPOINT_URL": "http://general:1", "AWS_ENDPOINT_URL_S3": "http://s3only:2",
        ])
        #expect(settings.credentials == .init(accessKeyID: "ENVKEY", secretAccessKey: "ENVSECRET", sessionToken: "ENVTOKEN"))
        #expect(settings.region == "ap-south-1")
        #expect(settings.endpoint == "http://s3only:2")
        #expect(try Self.resolve(["AWS_REGION": "us-west-2", "AWS_DEFAULT_REGION": "ap-south-1"]).region == "us-west-2")
        #expect(try Self.resolve(["AWS_ENDPOINT_URL": "http://general:1"]).endpoint == "http://general:1")
    }

    @Test func otherFilesAreReadWhereTheVariablesSay() throws {
        let files = ["/etc/aws/c": "[profile ci]\nregion = sa-east-1\n", "/home/u/creds": "[ci]\naws_access_key_id = A\naws_secret_access_key = B\n"]
        let settings = try Self.resolve(
            ["AWS_CONFIG_FILE": "/etc/aws/c", "AWS_SHARED_CREDENTIALS_FILE": "~/creds", "AWS_PROFILE": "ci"], files: files)
        #expect(settings.region == "sa-east-1" && settings.credentials?.accessKeyID == "A")
    }

    @Test func noFilesAndNoVariablesMeanUnsignedRequests() throws {
        let settings = try Self.resolve([:], files: [:])
        #expect(settings.credentials == nil && settings.region == nil && settings.endpoint == nil)
    }

    @Test func aProfileThatNeitherFileHasIsRefusedByName() {
        #expect(throws: S3Settings.Failure(description: """
            the AWS profile "nope" is in neither "/home/u/.aws/credentials" nor "/home/u/.aws/config"
            """)) { try Self.resolve(["AWS_PROFILE": "nope"]) }
    }

    @Test func halfAKeyPairIsRefusedNamingWhereItIs() {
        #expect(throws: S3Settings.Failure(description: "the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) has an access key id but no secret key")) {
            try Self.resolve(["AWS_ACCESS_KEY_ID": "ENVKEY"])
        }
        let files = ["/home/u/.aws/credentials": "[default]\naws_secret_access_key = S\n"]
        #expect(throws: S3Settings.Failure(description: """
            profile "default" in "/home/u/.aws/credentials" has a secret key but no access key id
            """)) { try Self.resolve([:], files: files) }
    }

    @Test func anUnknownAddressingStyleIsRefused() {
        let files = ["/home/u/.aws/config": "[default]\ns3 =\n  addressing_style = sideways\n"]
        #expect(throws: S3Settings.Failure(description: """
            s3's addressing_style in profile "default" of "/home/u/.aws/config" must be auto, path or virtual, not "sideways"
            """)) { try Self.resolve([:], files: files) }
    }

    @Test func theFilesOnDiskAreReadThroughLinksAndOneThatIsNoFileIsRefused() throws {
        let home = try TemporaryDirectory()
        let real = try home.write("dotfiles/aws-config", "[default]\nregion = eu-north-1\n")
        try FileManager.default.createDirectory(atPath: home.path + "/.aws", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: home.path + "/.aws/config", withDestinationPath: real)
        #expect(try S3Settings.resolve(environment: ["HOME": home.path]).region == "eu-north-1")
        try FileManager.default.createDirectory(atPath: home.path + "/.aws/credentials", withIntermediateDirectories: true)
        #expect(throws: S3Settings.Failure(description: """
            the AWS settings file "\(home.path)/.aws/credentials" is a directory, not a regular file
            """)) { try S3Settings.resolve(environment: ["HOME": home.path]) }
    }
}
