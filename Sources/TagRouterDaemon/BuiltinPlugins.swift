import ExecPlugin
import MQTTPlugin
import OpenURLPlugin
import ReaderKeyboard
import ReaderLibNFC
import ReaderPCSC
import ShellPlugin
import TagReader
import TagRouter
import WebhookPlugin

/// Every plugin built into tagrouter: the one place that lists the actions, the
/// inputs and the reader drivers. A config may use exactly these action and input
/// names, and devices these drivers take (each `device:` by its scheme).
/// Every command and every test that needs the plugin list takes it from here.
public enum BuiltinPlugins {
    /// The reader drivers, in the order `devices` and `doctor` show them; the one without a scheme (libnfc) takes the rest.
    public static let readers = ReaderDrivers([
        LibNFCDriver.self,
        PCSCDriver.self,
        KeyboardDriver.self,
    ])

    public static let registry = PluginRegistry([
        LogPlugin.self,
        FeedbackPlugin.self,
        MQTTPlugin.self,
        ShellPlugin.self,
        OpenURLPlugin.self,
        WebhookPlugin.self,
        ExecPlugin.self,
    ], sources: [
        EventsInput.self,
        MQTTInput.self,
    ], readers: readers.kinds)
}
