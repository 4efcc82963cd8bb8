import AssetSync
import Glibc

// A reader that closes standard output (`| head`) makes a write fail with EPIPE instead of
// killing the process: each command decides what that means (see Console.checkOutput).
signal(SIGPIPE, SIG_IGN)
Transfers.initialize()
Interruption.install()
exit(CommandLineTool.run(Array(CommandLine.arguments.dropFirst()), console: Console()).rawValue)
