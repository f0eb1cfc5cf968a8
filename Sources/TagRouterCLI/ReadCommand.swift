/// `tagrouter read`: read the tag on a reader and print its event JSON
enum ReadCommand: Command {
    static let name = "read"
    static let summary = "read the tag on a reader and print its event JSON"
    static let usage = """
        Usage: tagrouter read [--device CONNSTRING] [--if-busy exit|wait] [--timeout SECONDS]

        Reads the tag lying on the reader, or waits for one, prints its tag.arrived
        event as one line of JSON and exits. Exit status 1 when no tag arrives in time.

        \(ReaderOptions.usage)
          --timeout SECONDS     how long to wait for a tag (default 30)
        """

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let reader = try ReaderOptions(&arguments, multiple: false)
        let timeout = try ReaderOptions.seconds(try arguments.option("--timeout"), option: "--timeout", default: .seconds(30))
        try arguments.finish()
        let event = try await ReaderOptions.firstTag(device: reader.devices[0], timeout: timeout, ifBusy: reader.ifBusy)
        print(event.json.serialized())
    }
}
