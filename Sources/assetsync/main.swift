import AssetSync
import Glibc

Transfers.initialize()
Interruption.install()
exit(CommandLineTool.run(Array(CommandLine.arguments.dropFirst()), console: Console()).rawValue)
