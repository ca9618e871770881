//! Helpers shared by the integration tests.

use std::panic;
use std::sync::Once;

/// Every panic message the tests raise on purpose starts with this.
pub const EXPECTED_PANIC: &str = "expected test panic: ";

/// Keeps the panics the tests raise on purpose out of the output, where
/// they would read like failures; every other panic (a failing assertion)
/// still goes to the default hook. Installed once per test binary and left
/// in place, since tests run concurrently and restoring it would race.
pub fn hide_expected_panics() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let default_hook = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let message = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
            if !message.map_or(false, |m| m.starts_with(EXPECTED_PANIC)) {
                default_hook(info);
            }
        }));
    });
}
