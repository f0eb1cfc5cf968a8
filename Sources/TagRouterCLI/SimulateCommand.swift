@preconcurrency import Glibc
import FoundationEssentials
import OrderedJSON
import PN532Sim
import SystemKit

/// `tagrouter simulate`: run a PN532 reader simulator on a pseudo-terminal
enum SimulateCommand: Command {
    static let name = "simulate"
    static let summary = "run a PN532 reader simulator on a pseudo-terminal"
    static let about = """
        Runs a PN532 that libnfc drives like a real reader (connstring
        pn532_uart:PATH), holding simulated tags you place and remove at run time
        through the control socket. Runs until interrupted (Ctrl-C, SIGTERM).
        """
    static let linkOption = ValueOption<String?>("--link", placeholder: "PATH", help: "also make PATH a symlink to the pseudo-terminal, so the\nconnstring stays the same between runs")
    static let controlOption = ValueOption<String?>("--control", placeholder: "SOCKET", help: "accept JSON-line requests on this Unix socket\n(place, replace, remove, list, dump, counters)")
    static let noPacingOption = CommandOption("--no-pacing", help: "answer at once instead of at 115200-baud UART and RF speed")
    static let tagOption = ValueOption<[String]>("--tag", placeholder: "JSON", help: "place a tag at start, e.g.\n'{\"type\":\"ntag215\",\"uid\":\"04a224b2c35e80\",\"records\":[{\"uri\":\"https://example.com\"}]}'")
    static let vpcdOption = ValueOption<UInt16?>("--vpcd", placeholder: "PORT", help: "be the card in pcscd's vpcd virtual reader instead (vsmartcard-vpcd,\nlistening on 127.0.0.1:PORT; 35963 for its first slot): the tags\nanswer as on a PC/SC contactless reader (`--device pcsc:…`)")
    static let requestOption = ValueOption<String?>("--request", placeholder: "JSON", help: "send one request to a running simulator's control socket,\nprint the response line; exit 1 when it says \"ok\": false")
    static let options: [any DeclaredOption] = [linkOption, controlOption, noPacingOption, tagOption, vpcdOption, requestOption]
    static let synopses = [
        Synopsis(.optional(linkOption), .optional(controlOption), .optional(noPacingOption), .optional(tagOption)),
        Synopsis(.option(vpcdOption), .optional(controlOption), .optional(tagOption)),
        Synopsis(.option(controlOption), .option(requestOption)),
    ]
    static let epilogue = """
        The protocol and every tag field: docs/simulator.md.

        Example:
          tagrouter simulate --link /tmp/pn532 --control /tmp/pn532.sock &
          tagrouter simulate --control /tmp/pn532.sock --request '{"op":"place","type":"ntag213","records":[{"text":"hello"}]}'
          LIBNFC_DEVICE=pn532_uart:/tmp/pn532 nfc-list
        """

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let link = try arguments.value(of: linkOption)
        let controlPath = try arguments.value(of: controlOption)
        let noPacing = arguments.flag(noPacingOption)
        let tags = try arguments.value(of: tagOption)
        let request = try arguments.value(of: requestOption)
        let vpcd = try arguments.value(of: vpcdOption)
        try arguments.finish()
        if let request {
            guard let controlPath else { throw .usage("--request needs --control SOCKET") }
            let response = try SimulateClient.send(request, to: controlPath)
            print(response)
            if !response.contains(#""ok":true"#) { throw .runtime("the simulator refused the request") }
            return
        }
        if let port = vpcd {
            guard port > 0 else { throw .usage("--vpcd takes a TCP port, not 0") }
            let card = VPCDCard(port: port)
            defer { card.close() }
            try await serve(SimulatorControl(card: card), controlPath: controlPath, tags: tags, banner: [
                "vpcd card for 127.0.0.1:\(port)", "device: pcsc:auto (the vpcd slot on port \(port))",
            ])
            return
        }
        try await serve(link: link, controlPath: controlPath, pacing: noPacing ? .none : .uart115200, tags: tags)
    }

    private static func serve(link: String?, controlPath: String?, pacing: Pacing, tags: [String]) async throws(CLIError) {
        let simulator: PN532Simulator
        do {
            simulator = try PN532Simulator(pacing: pacing)
        } catch {
            throw .runtime(error.description)
        }
        defer { simulator.close() }
        if let link { try makeLink(link, to: simulator.devicePath) }
        defer { if let link { unlink(link) } }
        try await serve(SimulatorControl(simulator: simulator), controlPath: controlPath, tags: tags, banner: [
            "PN532 simulator on \(simulator.devicePath)", "connstring: pn532_uart:\(link ?? simulator.devicePath)",
            "pacing: \(pacing == .none ? "none" : "115200 baud, RF timing modelled")",
        ])
    }

    /// Places the `--tag`s, serves the control socket, prints where it is, and waits for SIGINT/SIGTERM.
    private static func serve(_ control: SimulatorControl, controlPath: String?, tags: [String], banner: [String]) async throws(CLIError) {
        for tag in tags {
            let spec: JSONValue
            do {
                spec = try JSONValue.parse(tag)
            } catch {
                throw .usage("--tag \(tag): not JSON \(error)")
            }
            let request = JSONValue.object(JSONObject(["op": "place", "tags": .array([spec])]))
            let response = try? JSONValue.parse(control.respond(to: request.serialized()))
            guard response?["ok"] == .bool(true) else {
                throw .usage("--tag \(tag): \(response?["error"]?.stringValue ?? "the simulator did not answer")")
            }
        }
        var server: ControlSocketServer?
        if let controlPath {
            do {
                server = try ControlSocketServer(path: controlPath, control: control)
            } catch {
                throw .runtime(error.description)
            }
        }
        defer { server?.close() }
        for (index, line) in banner.enumerated() {
            print(line)
            if index == 1, let controlPath { print("control: \(controlPath)") }
        }
        await interrupted()
    }

    /// Points `path` at the pseudo-terminal, replacing an older symlink but never a real file.
    private static func makeLink(_ path: String, to target: String) throws(CLIError) {
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFLNK else {
                throw .usage("--link \(path) exists and is not a symlink; choose another path")
            }
            unlink(path)
        }
        guard symlink(target, path) == 0 else {
            throw .runtime("cannot create the symlink \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Returns when SIGINT or SIGTERM arrives.
    private static func interrupted() async {
        for await _ in Signals.stream([SIGINT, SIGTERM]) { break }
    }
}
