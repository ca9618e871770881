//! Status codes and the error type every fallible call returns.

use std::ffi::CStr;
use std::fmt;
use std::os::raw::c_int;
use std::sync::Arc;

use libdag_sys as sys;

/// A libdag status code: what kind of failure an [`Error`] is, or the verdict
/// of a [`Validation`](crate::Validation).
///
/// The numeric values ([`Status::code`]) are libdag's ABI and never change.
/// New codes may be added by later libdag versions; a code this binding does
/// not know comes back as [`Status::Unknown`] rather than being lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Status {
    /// Success. Only ever seen as the status of a valid graph's
    /// [`Validation`](crate::Validation); an [`Error`] never carries it.
    Ok,
    /// A required pointer argument was NULL (a bug in this binding if seen).
    NullArgument,
    /// An argument is out of range or malformed: an empty vertex name, a
    /// name or path holding a NUL byte, a parallelism of 0, a format that
    /// cannot be used in that direction...
    InvalidArgument,
    /// Memory could not be allocated; the object is left as it was.
    NoMemory,
    /// A vertex id was never issued by this graph, or its vertex was removed.
    UnknownVertex,
    /// A lookup found nothing.
    NotFound,
    /// A vertex name is already used by another vertex of the graph.
    DuplicateName,
    /// A string is not valid UTF-8 (input text, for imports).
    BadUtf8,
    /// The graph (or the change) has a cycle or a self reference; the
    /// message lists each in Terraform's `Cycle:` form.
    Cycle,
    /// The graph is being walked or traversed and cannot be used that way now.
    Busy,
    /// The graph has no root (single-root rule).
    NoRoot,
    /// The graph has more than one root (single-root rule).
    MultipleRoots,
    /// Not returned since libdag 1.2: validation reports a cycle as
    /// [`Status::Cycle`] whatever else is wrong. Kept so that the code
    /// stays pinned.
    InvalidGraph,
    /// The call is not allowed in the current state.
    State,
    /// A walk was cancelled (also the answer to completing a
    /// [`Pending`](crate::Pending) whose vertex the cancel finished), a
    /// [`Graph::search`](crate::Graph::search) callback answered
    /// [`SearchAction::Abort`](crate::SearchAction::Abort), or a build step
    /// of yours returned `Err` ([`Builder::build`](crate::Builder::build)).
    Cancelled,
    /// Input text (JSON, DOT) could not be parsed; the message says where.
    Parse,
    /// A file could not be read or written.
    Io,
    /// A bug inside libdag; please report the message.
    Internal,
    /// A walk ran to its end but at least one vertex failed.
    WalkFailed,
    /// A C++ exception escaped a function libdag called back (libdag 1.2;
    /// this binding's own callbacks never let one escape).
    Callback,
    /// A wait with a time limit ended first; nothing changed (libdag 1.2).
    Timeout,
    /// A code this version of the binding does not know (from a newer libdag).
    Unknown(i32),
}

impl Status {
    /// The status for a raw `dag_status` value.
    pub fn from_code(code: i32) -> Status {
        match code {
            sys::DAG_OK => Status::Ok,
            sys::DAG_E_NULL_ARGUMENT => Status::NullArgument,
            sys::DAG_E_INVALID_ARGUMENT => Status::InvalidArgument,
            sys::DAG_E_NOMEM => Status::NoMemory,
            sys::DAG_E_UNKNOWN_VERTEX => Status::UnknownVertex,
            sys::DAG_E_NOT_FOUND => Status::NotFound,
            sys::DAG_E_DUPLICATE_NAME => Status::DuplicateName,
            sys::DAG_E_BAD_UTF8 => Status::BadUtf8,
            sys::DAG_E_CYCLE => Status::Cycle,
            sys::DAG_E_BUSY => Status::Busy,
            sys::DAG_E_NO_ROOT => Status::NoRoot,
            sys::DAG_E_MULTIPLE_ROOTS => Status::MultipleRoots,
            sys::DAG_E_INVALID_GRAPH => Status::InvalidGraph,
            sys::DAG_E_STATE => Status::State,
            sys::DAG_E_CANCELLED => Status::Cancelled,
            sys::DAG_E_PARSE => Status::Parse,
            sys::DAG_E_IO => Status::Io,
            sys::DAG_E_INTERNAL => Status::Internal,
            sys::DAG_E_WALK_FAILED => Status::WalkFailed,
            sys::DAG_E_CALLBACK => Status::Callback,
            sys::DAG_E_TIMEOUT => Status::Timeout,
            other => Status::Unknown(other),
        }
    }

    /// The raw `dag_status` value (0 for [`Status::Ok`], negative otherwise).
    pub fn code(self) -> i32 {
        match self {
            Status::Ok => sys::DAG_OK,
            Status::NullArgument => sys::DAG_E_NULL_ARGUMENT,
            Status::InvalidArgument => sys::DAG_E_INVALID_ARGUMENT,
            Status::NoMemory => sys::DAG_E_NOMEM,
            Status::UnknownVertex => sys::DAG_E_UNKNOWN_VERTEX,
            Status::NotFound => sys::DAG_E_NOT_FOUND,
            Status::DuplicateName => sys::DAG_E_DUPLICATE_NAME,
            Status::BadUtf8 => sys::DAG_E_BAD_UTF8,
            Status::Cycle => sys::DAG_E_CYCLE,
            Status::Busy => sys::DAG_E_BUSY,
            Status::NoRoot => sys::DAG_E_NO_ROOT,
            Status::MultipleRoots => sys::DAG_E_MULTIPLE_ROOTS,
            Status::InvalidGraph => sys::DAG_E_INVALID_GRAPH,
            Status::State => sys::DAG_E_STATE,
            Status::Cancelled => sys::DAG_E_CANCELLED,
            Status::Parse => sys::DAG_E_PARSE,
            Status::Io => sys::DAG_E_IO,
            Status::Internal => sys::DAG_E_INTERNAL,
            Status::WalkFailed => sys::DAG_E_WALK_FAILED,
            Status::Callback => sys::DAG_E_CALLBACK,
            Status::Timeout => sys::DAG_E_TIMEOUT,
            Status::Unknown(code) => code,
        }
    }

    /// libdag's short English description ("unknown vertex"), or
    /// "unrecognised status" for a code it does not know.
    pub fn description(self) -> &'static str {
        // SAFETY: dag_status_string accepts any value and returns a static,
        // NUL-terminated string that is never freed.
        let text = unsafe { CStr::from_ptr(sys::dag_status_string(self.code() as c_int)) };
        text.to_str().unwrap_or("unrecognised status")
    }
}

impl fmt::Display for Status {
    /// The description, padded to the formatter's width (`{:>20}`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.description())
    }
}

/// What a walk callback may fail with: any error type, or a `String` or
/// `&str` (both convert).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A callback's error once the walk holds it: shared by the report and the
/// [`Error`]s made from it.
pub(crate) type SharedError = Arc<dyn std::error::Error + Send + Sync>;

/// A failed libdag call: the [`Status`] saying what kind of failure it is,
/// and a message naming the Rust method and the argument, vertex or input
/// position at fault (`"Graph::root: no roots found"`).
///
/// An error made from a failed walk ([`WalkReport::into_result`](crate::WalkReport::into_result))
/// has the first failed callback's own error as its
/// [`source`](std::error::Error::source), which `downcast_ref` gets back
/// as the callback's type.
///
/// Two errors are equal when their status and message are.
#[derive(Debug, Clone)]
pub struct Error {
    status: Status,
    message: String,
    source: Option<SharedError>,
}

impl PartialEq for Error {
    fn eq(&self, other: &Error) -> bool {
        self.status == other.status && self.message == other.message
    }
}

impl Eq for Error {}

/// `std::result::Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error made by this binding, not by libdag.
    pub(crate) fn new(status: Status, message: impl Into<String>) -> Error {
        Error {
            status,
            message: message.into(),
            source: None,
        }
    }

    /// The same error, its message naming `method` where it named `shared`
    /// (a C function that several methods call, named after one of them).
    pub(crate) fn in_method(mut self, shared: &str, method: &str) -> Error {
        if let Some(rest) = self.message.strip_prefix(shared) {
            if rest.starts_with(": ") {
                self.message = format!("{}{}", method, rest);
            }
        }
        self
    }

    /// The same timeout, its message naming a wait of `ms` where it named
    /// a shorter one ("within 50 ms"): that of the last of several waits.
    pub(crate) fn waited(mut self, ms: i32) -> Error {
        if let Some(at) = self.message.rfind("within ") {
            let digits = at + "within ".len();
            let end = self.message[digits..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(self.message.len(), |n| digits + n);
            if end > digits {
                self.message.replace_range(digits..end, &ms.to_string());
            }
        }
        self
    }

    /// The same error, caused by `source`.
    pub(crate) fn with_source(mut self, source: Option<SharedError>) -> Error {
        self.source = source;
        self
    }

    /// What kind of failure this is.
    pub fn status(&self) -> Status {
        self.status
    }

    /// The detailed message, starting with the failing method's name.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    /// The message (or the status's description when there is none), padded
    /// to the formatter's width.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            f.pad(self.status.description())
        } else {
            f.pad(&self.message)
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.source {
            Some(source) => Some(&**source),
            None => None,
        }
    }
}

/// libdag's message with the C function that starts it (`"dag_connect: "`)
/// replaced by the method of this crate that called it.
fn rust_terms(message: &str) -> String {
    match message.split_once(": ") {
        Some((function, rest)) => match crate::names::method(function) {
            Some(method) => format!(
                "{}: {}",
                method,
                crate::names::argument_terms(function, rest)
            ),
            None => message.to_owned(),
        },
        None => message.to_owned(),
    }
}

/// Turns a libdag return value and its error out-parameter into a `Result`,
/// freeing the error object.
///
/// The status comes from the return value, not from the error object: when
/// libdag cannot allocate the error object it hands out a static
/// "out of memory" one while still returning the failure's own status.
///
/// # Safety
/// `err` must be NULL or an error object libdag just returned, not used
/// afterwards.
pub(crate) unsafe fn check(status: c_int, err: *mut sys::dag_error) -> Result<()> {
    if status == sys::DAG_OK {
        // *err is NULL on success, and dag_error_free(NULL) does nothing.
        sys::dag_error_free(err);
        return Ok(());
    }
    let message = if err.is_null() {
        String::new()
    } else {
        rust_terms(&CStr::from_ptr(sys::dag_error_message(err)).to_string_lossy())
    };
    sys::dag_error_free(err);
    Err(Error::new(Status::from_code(status), message))
}
