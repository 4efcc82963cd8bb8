import AssetSync

/// The help pages, hand-written in swift-argument-parser's layout.
enum HelpText {
    static let main = """
        OVERVIEW: Mirror large remote files into a local cache, each one verified by its CRC-32.

        assetsync reads a manifest (XML or JSON, optionally gzip-compressed) that lists
        each file's path, size, URL and CRC-32, and compares it with a cache directory.

        USAGE: assetsync <subcommand>

        OPTIONS:
          --version               Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          plan                    Show what a pull would do, without downloading anything.

          See 'assetsync help <subcommand>' for detailed help.

        """

    static let mainUsage = "assetsync <subcommand>"

    static let plan = CommandSpec(
        name: "plan",
        usage: "assetsync plan <manifest> [--dest <dir>] [--json]",
        arguments: ["<manifest>"],
        valueOptions: ["--dest": "<dir>"],
        flags: ["--json"],
        help: """
            OVERVIEW: Show what a pull would do, without downloading anything.

            Reads and validates the manifest, then compares it with the cache directory
            using file sizes only (contents are never read, symlinks are never followed):
              new       missing from the cache
              changed   present with a different size, or not a regular file
              check     present with the same size; a pull proves it by its CRC-32
              extra     in the cache but not in the manifest

            USAGE: assetsync plan <manifest> [--dest <dir>] [--json]

            ARGUMENTS:
              <manifest>              The manifest: a file path, or - for standard input.

            OPTIONS:
              --dest <dir>            The cache directory. (default: the current directory)
              --json                  Print one JSON object per line instead of a table.
              -h, --help              Show help information.

            EXAMPLES:
              assetsync plan manifests/example.xml --dest /var/cache/assets
              gunzip -c manifest.json.gz | assetsync plan - --dest assets --json

            EXIT STATUS:
              0 the plan was printed; 2 the command line or the manifest is invalid;
              3 the cache directory could not be read.

            """)

    static let commands = [plan]

    static var version: String { "assetsync \(BuildInfo.version) (\(BuildInfo.libraries))\n" }
}
