import AssetSync

/// The help pages, hand-written in swift-argument-parser's layout.
package enum HelpText {
    package static let main = """
        OVERVIEW: Mirror large remote files into a local cache, each one verified by its CRC-32.

        assetsync reads a manifest (XML, JSON or a Metalink, optionally gzip-compressed)
        that lists each file's path, size, URL and CRC-32 or SHA-256, and compares it
        with a cache directory.

        USAGE: assetsync <subcommand>

        OPTIONS:
          --version               Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          pull                    Download what is missing or changed, verify it, and commit it atomically.
          plan                    Show what a pull would do, without downloading anything.
          verify                  Read every file of the manifest and prove it by its CRC-32.
          manifest                Describe a directory of files as a manifest.
          sign                    Sign a manifest file for pulls that pass --trusted-key.
          rollback                Point an atomic cache directory back at its previous generation.

          See 'assetsync help <subcommand>' for detailed help.

        """

    package static let mainUsage = "assetsync <subcommand>"

    package static let plan = CommandSpec(
        name: "plan",
        usage: "assetsync plan <manifest> [--dest <dir>] [--json] [--reuse-from <dir> ...] " + NetworkOptions.usage + " " + TrustedKeyOption.usage,
        arguments: ["<manifest>"],
        valueOptions: ["--dest": "<dir>", "--reuse-from": "<dir>"].merging(NetworkOptions.valueOptions) { own, _ in own }
            .merging(TrustedKeyOption.valueOptions) { own, _ in own },
        flags: ["--json"] + NetworkOptions.flags,
        repeatable: NetworkOptions.repeatable.union(["--reuse-from"]).union(TrustedKeyOption.repeatable),
        help: """
            OVERVIEW: Show what a pull would do, without downloading anything.

            Reads and validates the manifest, then compares it with the cache directory
            and its .assetsync/state exactly as a pull will (contents are never read,
            symlinks are never followed):
              new       missing from the cache
              changed   present with a different size, or not a regular file
              current   present, and .assetsync/state proves it unchanged since a pull
                        proved it; a pull does not read it
              check     present with the same size; a pull proves it by its CRC-32
              extra     in the cache but not in the manifest
            A new or changed file that a state index records elsewhere on this machine (a
            renamed or moved entry, another generation, a --reuse-from cache) is marked
            "may be copied from": the pull copies it instead of downloading it, once the copy
            is proven.

            USAGE: assetsync plan <manifest> [--dest <dir>] [--json] [--reuse-from <dir> ...]
                                  [--header <header> ...] [--netrc] [--auth-host <host> ...]
                                  [--cacert <file>] [--proxy <url>] [--speed-limit <rate>]
                                  [--speed-time <seconds>] [--endpoint-url <url>] [--region <region>]
                                  [--profile <name>] [--addressing-style auto|path|virtual] [--trusted-key <file> ...]

            ARGUMENTS:
              <manifest>              The manifest: a file path, - for standard input, an
                                      http(s) URL, or s3://BUCKET/KEY in an S3-compatible store.

            OPTIONS:
              --dest <dir>            The cache directory. (default: the current directory)
              --json                  Print one JSON object per line instead of a table.
              --reuse-from <dir>      Another assetsync cache on this machine, as for pull:
                                      its files are looked up as the pull would. Repeatable.
            \(NetworkOptions.help)
            \(TrustedKeyOption.help)
              -h, --help              Show help information.

            EXAMPLES:
              assetsync plan manifests/example.xml --dest /var/cache/assets
              gunzip -c manifest.json.gz | assetsync plan - --dest assets --json

            EXIT STATUS:
              0 the plan was printed; 1 a manifest URL could not be fetched; 2 the command line
              or the manifest is invalid; 3 the cache directory could not be read; 5 the manifest
              is not trustworthy (--trusted-key).

            """)

    package static let pull = CommandSpec(
        name: "pull",
        usage: "assetsync pull <manifest> [--dest <dir>] [--jobs <n>] [--retries <n>] [--verify] [--delete] [--max-delete <n>] [--dry-run] [--quiet] [--json] "
            + "[--atomic] [--no-atomic] [--keep <n>] [--limit-rate <rate>] [--lock-wait <seconds>] [--splay <seconds>] [--metrics-file <path>] "
            + "[--reuse-from <dir> ...] " + NetworkOptions.usage + " " + TrustedKeyOption.usage,
        arguments: ["<manifest>"],
        valueOptions: [
            "--dest": "<dir>", "--jobs": "<n>", "--retries": "<n>", "--limit-rate": "<rate>", "--lock-wait": "<seconds>",
            "--splay": "<seconds>", "--max-delete": "<n>", "--metrics-file": "<path>", "--keep": "<n>", "--reuse-from": "<dir>",
        ].merging(NetworkOptions.valueOptions) { own, _ in own }.merging(TrustedKeyOption.valueOptions) { own, _ in own },
        flags: ["--verify", "--delete", "--dry-run", "--quiet", "--json", "--atomic", "--no-atomic"] + NetworkOptions.flags,
        repeatable: NetworkOptions.repeatable.union(["--reuse-from"]).union(TrustedKeyOption.repeatable),
        help: """
            OVERVIEW: Download what is missing or changed, verify it, and commit it atomically.

            Every file is streamed to .assetsync/partial/ in the cache directory while its
            CRC-32 is computed, and only a file whose size and CRC-32 match the manifest is
            moved to its place. A file whose size, mtime and inode still match what
            .assetsync/state recorded when it was proven is current without being read;
            other files present with the right size are proven by reading them.
            Interrupted downloads resume on the next run (Range + If-Range).

            USAGE: assetsync pull <manifest> [--dest <dir>] [--jobs <n>] [--retries <n>] [--verify] [--delete] [--max-delete <n>]
                                  [--dry-run] [--quiet] [--json] [--atomic] [--no-atomic] [--keep <n>]
                                  [--limit-rate <rate>] [--lock-wait <seconds>] [--splay <seconds>]
                                  [--metrics-file <path>] [--reuse-from <dir> ...] [--header <header> ...] [--netrc]
                                  [--auth-host <host> ...] [--cacert <file>] [--proxy <url>] [--speed-limit <rate>]
                                  [--speed-time <seconds>] [--endpoint-url <url>] [--region <region>] [--profile <name>]
                                  [--addressing-style auto|path|virtual] [--trusted-key <file> ...]

            ARGUMENTS:
              <manifest>              The manifest: a file path, - for standard input, an
                                      http(s) URL, or s3://BUCKET/KEY in an S3-compatible store.

            OPTIONS:
              --dest <dir>            The cache directory. (default: the current directory)
              --jobs <n>              Parallel transfers, 1 to 64. (default: 8)
              --retries <n>           Retries per URL for transient failures (connect errors,
                                      timeouts, stalls, 408, 429, 5xx), with exponential backoff,
                                      before the next mirror is tried. (default: 5)
              --verify                Ignore .assetsync/state: read and prove every present file.
              --delete                Then remove files the manifest does not list, and the
                                      directories left empty. Only in a directory where an earlier
                                      pull completed; symlinks are removed, never followed.
              --max-delete <n>        Refuse (exit 2, nothing changed) when --delete would remove
                                      more than n files. (default: 1000)
              --dry-run               Show the plan instead of pulling (the same as 'plan').
              --quiet                 Print only failures.
              --json                  Also write one JSON object per line to standard output:
                                      plan, start, retry, restart, progress, done, failed, deleted,
                                      summary (see docs/events.md).
              --atomic                Publish the whole set at once: DEST becomes a symlink to a
                                      complete, proven generation in DEST.assetsync/, and a pull
                                      builds the next one (unchanged files cloned, or hard-linked
                                      where the file system has no reflinks) and swaps
                                      the link only when every file is proven. Remembered: later
                                      pulls stay atomic (see docs/atomicity.md).
              --no-atomic             Make an atomic DEST a plain directory again, keeping every
                                      file of its current generation, then pull as usual.
              --keep <n>              With --atomic: generations to keep, the current one
                                      included, for 'assetsync rollback'. (default: 2)
              --limit-rate <rate>     Bytes per second for the whole run, such as 500K, 20M or 1G,
                                      shared by the transfers running at each moment.
              --lock-wait <seconds>   How long to wait for another run's lock on the cache
                                      directory before exiting with status 4. (default: 0)
              --splay <seconds>       Wait a random time up to this long before the first
                                      request, so a fleet on one schedule spreads out. (default: 0)
              --metrics-file <path>   When the pull ends, however it ends, replace this file with
                                      its metrics in Prometheus's text format (for node_exporter's
                                      textfile collector; see docs/fleet.md). Not with --dry-run.
              --reuse-from <dir>      Another assetsync cache on this machine: a file its
                                      .assetsync/state lists with an entry's size and CRC-32 is
                                      copied (a reflink where the file system allows) instead of
                                      downloaded, once the copy is proven. Repeatable. Files
                                      renamed or moved inside the cache directory are always reused.
            \(NetworkOptions.help)
            \(TrustedKeyOption.help)
              -h, --help              Show help information.

            EXAMPLES:
              assetsync pull manifests/example.xml --dest /var/cache/assets
              assetsync pull https://cdn.example.com/game/manifest.xml --jobs 16 --header "Authorization: Bearer $TOKEN"

            EXIT STATUS:
              0 the cache matches the manifest; 1 some files could not be synced (the rest are
              committed, nothing is corrupt); 2 invalid command line or manifest; 3 local I/O
              failure (disk full, permissions); 4 another run holds the cache directory's lock;
              5 the manifest is not trustworthy (--trusted-key): nothing was changed;
              130 interrupted (partial files kept for resume).

            """)

    package static let verify = CommandSpec(
        name: "verify",
        usage: "assetsync verify <manifest> [--dest <dir>] [--repair] [--json] [--lock-wait <seconds>] " + NetworkOptions.usage
            + " " + TrustedKeyOption.usage,
        arguments: ["<manifest>"],
        valueOptions: ["--dest": "<dir>", "--lock-wait": "<seconds>"].merging(NetworkOptions.valueOptions) { own, _ in own }
            .merging(TrustedKeyOption.valueOptions) { own, _ in own },
        flags: ["--repair", "--json"] + NetworkOptions.flags,
        repeatable: NetworkOptions.repeatable.union(TrustedKeyOption.repeatable),
        help: """
            OVERVIEW: Read every file of the manifest and prove it by its CRC-32.

            Ignores .assetsync/state and reads every file, on all cores, reporting each
            one that is missing or corrupt. The state index is brought up to date with
            what was proven. With --repair, what is missing or corrupt is downloaded
            again through the normal atomic path, as 'pull --verify' does.

            USAGE: assetsync verify <manifest> [--dest <dir>] [--repair] [--json] [--lock-wait <seconds>]
                                    [--header <header> ...] [--netrc] [--auth-host <host> ...]
                                    [--cacert <file>] [--proxy <url>] [--speed-limit <rate>]
                                    [--speed-time <seconds>] [--endpoint-url <url>] [--region <region>]
                                    [--profile <name>] [--addressing-style auto|path|virtual] [--trusted-key <file> ...]

            ARGUMENTS:
              <manifest>              The manifest: a file path, - for standard input, an
                                      http(s) URL, or s3://BUCKET/KEY in an S3-compatible store.

            OPTIONS:
              --dest <dir>            The cache directory. (default: the current directory)
              --repair                Download what is missing or corrupt.
              --json                  Also write one JSON object per line to standard output:
                                      done or failed per file, then summary (see docs/events.md).
              --lock-wait <seconds>   How long to wait for another run's lock on the cache
                                      directory before exiting with status 4. (default: 0)
            \(NetworkOptions.help)
            \(TrustedKeyOption.help)
              -h, --help              Show help information.

            EXAMPLES:
              assetsync verify manifests/example.xml --dest /var/cache/assets
              assetsync verify manifests/example.xml --dest /var/cache/assets --repair

            EXIT STATUS:
              0 every file is proven; 1 some files are missing or corrupt (and, with --repair,
              could not be downloaded), or a manifest URL could not be fetched; 2 invalid command
              line or manifest; 3 a file could not be read; 4 another run holds the cache
              directory's lock; 5 the manifest is not trustworthy (--trusted-key).

            """)

    package static let manifest = CommandSpec(
        name: "manifest",
        usage: "assetsync manifest <dir>|s3://BUCKET/PREFIX/ [--base <url>] [--format xml|json|meta4] [--output <file>] [--sha256] [--chunks] "
            + "[--sign <file> [--version <n>] [--expires <when>]] " + NetworkOptions.usage,
        arguments: ["<dir>"],
        valueOptions: ["--base": "<url>", "--format": "xml|json|meta4", "--output": "<file>", "--sign": "<file>"]
            .merging(ManifestSigning.valueOptions) { own, _ in own }.merging(NetworkOptions.valueOptions) { own, _ in own },
        flags: ["--sha256", "--chunks"] + NetworkOptions.flags,
        repeatable: NetworkOptions.repeatable,
        help: """
            OVERVIEW: Describe a directory of files, or a bucket's prefix, as a manifest, for the
            publishing side.

            Walks the directory without following symlinks (skipping .assetsync/), computes
            each file's size and CRC-32 (and SHA-256 with --sha256) on all cores, and writes
            a manifest whose entries are fetched at the base URL plus their path. The output
            is sorted and byte-identical on reruns over the same files. A Metalink (meta4)
            gives each file's size, SHA-256 and URL, for aria2 and other download managers.

            Given s3://BUCKET/PREFIX/, lists the prefix in an S3-compatible store (ListObjectsV2,
            1,000 keys a page) and takes each object's CRC-32 from the store when it keeps one
            of the whole object (GetObjectAttributes; a multipart upload's checksum of its
            parts' checksums never counts), else streams the object once and hashes it; with
            --sha256 or meta4, every object is streamed. Standard error says how many of each.
            The store, its key and its region come from the AWS settings and the S3 options below.

            USAGE: assetsync manifest <dir> --base <url> [--format xml|json|meta4]
                                      [--output <file>] [--sha256] [--chunks]
                                      [--sign <file> [--version <n>] [--expires <when>]]
                   assetsync manifest s3://BUCKET/PREFIX/ [--base <url>] [--format xml|json|meta4]
                                      [--output <file>] [--sha256] [--sign <file> ...]
                                      [--endpoint-url <url>] [--region <region>] [--profile <name>]
                                      [--addressing-style auto|path|virtual] [--cacert <file>]
                                      [--proxy <url>]

            ARGUMENTS:
              <dir>                   The directory to describe, or s3://BUCKET/PREFIX/: the
                                      objects under a prefix of a bucket.

            OPTIONS:
              --base <url>            Where the files are served (http, https or s3); a "/" is
                                      added when missing. (default for a bucket: the prefix
                                      itself, s3://BUCKET/PREFIX/)
              --format xml|json|meta4
                                      The manifest's encoding: meta4 is a Metalink 4 (RFC
                                      5854), with every file's SHA-256. (default: xml)
              --output <file>         Write the manifest here (atomically) instead of to
                                      standard output.
              --sha256                Give each file its SHA-256 too (in the same read):
                                      pulls then prove each file by it, not CRC-32 alone.
              --chunks                Also list each file's content-defined chunks (256 KiB
                                      to 4 MiB, about 1 MiB), from the same read: a pull
                                      that has an old version then downloads only the
                                      chunks that changed. Directories only.
              --sign <file>           Also sign it with this minisign secret key, writing
                                      <file>.minisig beside --output, as 'assetsync sign' does.
            \(ManifestSigning.help)
            \(NetworkOptions.help)
              -h, --help              Show help information.

            EXAMPLES:
              assetsync manifest build/assets --base https://cdn.example.com/game/ --output manifest.xml
              assetsync manifest build/assets --base https://cdn.example.com/game/ --format json | gzip > m.json.gz
              assetsync manifest build/assets --base https://cdn.example.com/game/ --format meta4 --output game.meta4
              assetsync manifest s3://build-assets/nightly/ --format json --output manifest.json

            EXIT STATUS:
              0 the manifest was written; 1 the bucket could not be listed or an object read;
              2 invalid command line or secret key, or a file name no manifest may hold; 3 the
              directory or a file could not be read, or the output not written.

            """)

    package static let rollback = CommandSpec(
        name: "rollback",
        usage: "assetsync rollback [--dest <dir>] [--verify] [--lock-wait <seconds>]",
        arguments: [],
        valueOptions: ["--dest": "<dir>", "--lock-wait": "<seconds>"],
        flags: ["--verify"],
        help: """
            OVERVIEW: Point an atomic cache directory back at its previous generation.

            For a cache directory pulled with --atomic: DEST is a symlink to a generation in
            DEST.assetsync/, and the previous ones are kept (pull --keep). One rename of a new
            symlink over DEST makes the previous generation the one readers see; the
            generation a pull was building from the current one is dropped. Run it again to
            go further back, while older generations are kept.

            The previous generation is checked first against its own state index: every file
            it recorded must be there with the size, modification time and inode it was
            proven with (nothing is read; --verify reads every file for its checksums too).
            A generation emptied or changed since is not published, and the error names
            what is wrong.

            USAGE: assetsync rollback [--dest <dir>] [--verify] [--lock-wait <seconds>]

            OPTIONS:
              --dest <dir>            The cache directory, named by its own name (the symlink).
                                      (default: the current directory)
              --verify                Read every file of the previous generation and compare
                                      its CRC-32 (and SHA-256) with what was proven.
              --lock-wait <seconds>   How long to wait for another run's lock on the cache
                                      directory before exiting with status 4. (default: 0)
              -h, --help              Show help information.

            EXAMPLES:
              assetsync rollback --dest /var/cache/assets
              assetsync rollback --dest /var/cache/assets --verify

            EXIT STATUS:
              0 DEST shows the previous generation; 2 invalid command line, DEST is not atomic,
              or there is no previous generation; 3 local I/O failure, or the previous
              generation is not as its pull left it (DEST is left as it was); 4 another run
              holds the cache directory's lock.

            """)

    package static let commands = [pull, plan, verify, manifest, SignCommand.spec, rollback]

    package static var version: String { "assetsync \(BuildInfo.version) (\(BuildInfo.libraries))\n" }
}
