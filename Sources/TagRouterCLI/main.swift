@preconcurrency import Glibc
import FoundationEssentials
import SystemKit
import TagCore

setvbuf(stdout, nil, _IOLBF, 0)

func printToStderr(_ text: String) {
    StandardError.write(line: text)
}

/// The command called `name`; an unknown name ends the process with exit status 64.
@MainActor func lookUpCommand(_ name: String) -> any Command.Type {
    guard let command = Tool.commands.first(where: { $0.name == name }) else {
        printToStderr("error: unknown command '\(name)'\nsee `tagrouter --help`")
        exit(64)
    }
    return command
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let first = arguments.first else {
    printToStderr(Tool.usage)
    exit(64)
}
if first == "help", arguments.count == 2, let document = HelpDocument(rawValue: arguments[1]) {
    print(document.render(commands: Tool.commands, toolUsage: Tool.usage, version: Tool.version), terminator: "")
    exit(0)
}
switch first {
case "help" where arguments.count > 1:
    print(lookUpCommand(arguments[1]).usage)
    exit(0)
case "--help", "-h", "help":
    print(Tool.usage)
    exit(0)
case "--version":
    print("tagrouter \(Tool.version)")
    exit(0)
default:
    break
}
let command = lookUpCommand(first)
arguments.removeFirst()
if arguments.contains("--help") || arguments.contains("-h") {
    print(command.usage)
    exit(0)
}

/// Runs `command` on `arguments` to its end and exits with its status.
func runToExit(_ command: any Command.Type, _ arguments: [String]) async -> Never {
    do {
        try await command.run(Arguments(arguments, accepting: command.options))
        exit(0)
    } catch {
        printToStderr("error: " + TerminalText.escaped(error.message, keepingLineBreaks: true))
        if case .usage = error { printToStderr("see `tagrouter \(command.name) --help`") }
        exit(error.exitStatus)
    }
}

// The command runs in a task and every way it ends calls `exit`; the main thread only waits. (An `await` up here would
// make this an async main, whose main thread Dispatch ends with `pthread_exit`: that unwinds the thread's stack through
// ~0.5 MB of the binary's unwind tables, which then stay resident in every daemon; docs/development/memory.md.)
// It waits with no signal blocked, as Dispatch's thread did: the pool's threads block signals, and a process started by
// one of them inherits that mask, so the main thread is where SIGTERM, SIGHUP and SIGINT reach their handlers.
Task.detached { [command, arguments] in await runToExit(command, arguments) }
var noSignalBlocked = sigset_t()
sigemptyset(&noSignalBlocked)
while true { sigsuspend(&noSignalBlocked) }
