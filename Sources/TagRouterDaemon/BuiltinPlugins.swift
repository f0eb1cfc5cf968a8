import ExecPlugin
import MQTTPlugin
import OpenURLPlugin
import ShellPlugin
import TagRouter
import WebhookPlugin

/// Every plugin built into tagrouter: the one place that lists the actions and
/// the inputs. A config may use exactly these action and input names. (Readers
/// are chosen by their `device:` — libnfc connstrings and `pcsc:` — in TagReader.)
/// Every command and every test that needs the plugin list takes it from here.
public enum BuiltinPlugins {
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
    ])
}
