import AssetSync

/// `assetsync sign`: sign an existing manifest file as minisign does, writing `MANIFEST.minisig`
/// with a trusted comment that carries the version and expiry `--trusted-key` checks.
package enum SignCommand {
    package static let spec = CommandSpec(
        name: "sign",
        usage: "assetsync sign <manifest> --key <file> [--version <n>] [--expires <when>]",
        arguments: ["<manifest>"],
        valueOptions: ["--key": "<file>"].merging(ManifestSigning.valueOptions) { own, _ in own },
        flags: [],
        help: """
            OVERVIEW: Sign a manifest file for pulls that pass --trusted-key.

            Writes <manifest>.minisig in minisign's format (Ed25519 over the BLAKE2b-512 of
            the file's bytes, exactly as they are, gzip included), which 'minisign -V' also
            verifies. Its trusted comment reads
              assetsync version=<n> [expires=<when>] file=<name>
            Publish the .minisig beside the manifest (at the manifest URL + .minisig).

            USAGE: assetsync sign <manifest> --key <file> [--version <n>] [--expires <when>]

            ARGUMENTS:
              <manifest>              The manifest file to sign.

            OPTIONS:
              --key <file>            A minisign secret key file. The password of an encrypted
                                      one is asked on the terminal; for unattended signing,
                                      make one without ('minisign -G -W').
            \(ManifestSigning.help)
              -h, --help              Show help information.

            EXAMPLES:
              assetsync sign manifest.xml --key /etc/assetsync/release.key --expires 30d
              assetsync pull https://cdn.example.com/game/manifest.xml --trusted-key release.pub

            EXIT STATUS:
              0 the signature was written; 2 invalid command line, manifest file or key;
              3 the signature could not be written.

            """)

    package static func run(_ arguments: ParsedArguments, context: CommandContext) throws(ExitStatus) {
        let console = context.console
        let path = arguments.arguments[0]
        guard let keyPath = arguments.value("--key") else {
            throw CommandLineTool.usageFailure(
                UsageError(message: "Missing '--key <file>': the minisign secret key to sign with", command: "sign"), console: console)
        }
        // Only a manifest that pulls would accept is worth a signature (and the key's password).
        let manifest: ManifestToSign
        do { manifest = try AssetSync.manifestToSign(at: path) } catch { throw PublishFailureReport(console: console, command: "sign").status(of: error) }
        let signing = try ManifestSigning.parse(arguments, keyPath: keyPath, command: "sign", console: console)
        try signing.sign(manifest, of: path, console: console)
    }
}
