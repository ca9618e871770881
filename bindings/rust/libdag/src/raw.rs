//! Owning wrappers for the objects libdag hands out, and the conversions
//! between Rust and C values. Every libdag object is freed by a guard's
//! `Drop`, so an early return or a resumed panic cannot leak it.

use std::any::Any;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int};
use std::ptr;
use std::slice;

use libdag_sys as sys;

use crate::error::{check, Error, Result, Status};
use crate::VertexId;

/// `len` values at `data`, or an empty slice when libdag returned NULL
/// (which it does for empty arrays).
///
/// # Safety
/// `data` must be NULL or point at `len` values that outlive `'a`.
pub(crate) unsafe fn u64_slice<'a>(data: *const u64, len: usize) -> &'a [u64] {
    if data.is_null() || len == 0 {
        &[]
    } else {
        slice::from_raw_parts(data, len)
    }
}

/// Copies `len` ids at `data` (owned by some libdag object) into a `Vec`.
///
/// # Safety
/// As [`u64_slice`].
pub(crate) unsafe fn copy_ids(data: *const u64, len: usize) -> Vec<VertexId> {
    to_vertex_ids(u64_slice(data, len))
}

/// Copies C ids into Rust ones.
pub(crate) fn to_vertex_ids(values: &[u64]) -> Vec<VertexId> {
    values.iter().map(|&v| VertexId(v)).collect()
}

/// The ids as the `const uint64_t *` libdag takes: `VertexId` is
/// `#[repr(transparent)]` over `u64`, so the slice is passed as is.
pub(crate) fn id_ptr(ids: &[VertexId]) -> *const u64 {
    ids.as_ptr().cast::<u64>()
}

/// A borrowed C string as a `String`, replacing invalid UTF-8 (libdag only
/// produces UTF-8, so this never changes anything in practice).
///
/// # Safety
/// `text` must be NULL or a NUL-terminated string.
pub(crate) unsafe fn lossy_string(text: *const c_char) -> String {
    if text.is_null() {
        String::new()
    } else {
        CStr::from_ptr(text).to_string_lossy().into_owned()
    }
}

/// A name for libdag, which cannot hold a NUL byte.
pub(crate) fn c_string(method: &str, what: &str, value: &str) -> Result<CString> {
    CString::new(value).map_err(|e| nul_error(method, what, value, e.nul_position()))
}

/// The error for a string holding a NUL byte at `at`, which libdag cannot
/// take.
fn nul_error(method: &str, what: &str, value: &str, at: usize) -> Error {
    Error::new(
        Status::InvalidArgument,
        format!(
            "{}: {} {:?} holds a NUL byte at {}",
            method, what, value, at
        ),
    )
}

/// Names for libdag's batch functions (`const char *const *names`), all
/// NUL-terminated in one buffer: one allocation for the batch rather than a
/// `CString` each.
pub(crate) struct CNames {
    /// Every name followed by its NUL. Never changed after `new`, so the
    /// pointers into its heap buffer stay valid while `self` lives (moving
    /// a `Vec` does not move its buffer).
    _text: Vec<u8>,
    /// One pointer per name into `_text`, NULL for `None`.
    pointers: Vec<*const c_char>,
}

impl CNames {
    /// The names in order, `None` as NULL.
    ///
    /// # Errors
    /// [`Status::InvalidArgument`] for a name holding a NUL byte, its
    /// message naming `method` and the name's index as libdag's batch
    /// messages do (`item` `"vertex"`: `"vertex 2: name ..."`).
    pub(crate) fn new<'a>(
        method: &str,
        item: &str,
        names: impl ExactSizeIterator<Item = Option<&'a str>> + Clone,
    ) -> Result<CNames> {
        let bytes: usize = names.clone().flatten().map(|n| n.len() + 1).sum();
        let mut text = Vec::with_capacity(bytes);
        let mut starts = Vec::with_capacity(names.len());
        for (i, name) in names.enumerate() {
            match name {
                Some(name) => {
                    if let Some(at) = name.bytes().position(|b| b == 0) {
                        let what = format!("{} {}: name", item, i);
                        return Err(nul_error(method, &what, name, at));
                    }
                    starts.push(Some(text.len()));
                    text.extend_from_slice(name.as_bytes());
                    text.push(0);
                }
                None => starts.push(None),
            }
        }
        // Only now, with `text` complete: it is never reallocated again.
        let base = text.as_ptr().cast::<c_char>();
        let pointers = starts
            .into_iter()
            // SAFETY: every start is an offset inside `text`.
            .map(|start| start.map_or(ptr::null(), |at| unsafe { base.add(at) }))
            .collect();
        Ok(CNames {
            _text: text,
            pointers,
        })
    }

    /// The `const char *const *` array, valid while `self` lives.
    pub(crate) fn as_ptr(&self) -> *const *const c_char {
        self.pointers.as_ptr()
    }

    /// Number of names.
    pub(crate) fn len(&self) -> usize {
        self.pointers.len()
    }
}

/// An owned `dag_ids`.
pub(crate) struct Ids(pub(crate) *mut sys::dag_ids);

impl Ids {
    pub(crate) fn null() -> Ids {
        Ids(ptr::null_mut())
    }

    pub(crate) fn as_slice(&self) -> &[u64] {
        // SAFETY: the array is owned by self and immutable until freed.
        unsafe { u64_slice(sys::dag_ids_data(self.0), sys::dag_ids_count(self.0)) }
    }
}

impl Drop for Ids {
    fn drop(&mut self) {
        // SAFETY: NULL or an array libdag gave us; freed once.
        unsafe { sys::dag_ids_free(self.0) }
    }
}

/// Calls a libdag function that returns an id array through `dag_ids **`.
pub(crate) fn call_ids<F>(call: F) -> Result<Vec<VertexId>>
where
    F: FnOnce(*mut *mut sys::dag_ids, *mut *mut sys::dag_error) -> c_int,
{
    let mut ids = Ids::null();
    let mut err = ptr::null_mut();
    let status = call(&mut ids.0, &mut err);
    // SAFETY: err comes straight from the call.
    unsafe { check(status, err)? };
    Ok(to_vertex_ids(ids.as_slice()))
}

/// An owned `dag_id_lists`.
pub(crate) struct IdLists(pub(crate) *mut sys::dag_id_lists);

impl IdLists {
    pub(crate) fn to_vecs(&self) -> Vec<Vec<VertexId>> {
        // SAFETY: the lists are owned by self and immutable until freed;
        // dag_id_lists_get accepts any index and reports the length.
        unsafe {
            (0..sys::dag_id_lists_count(self.0))
                .map(|i| {
                    let mut len = 0;
                    let data = sys::dag_id_lists_get(self.0, i, &mut len);
                    to_vertex_ids(u64_slice(data, len))
                })
                .collect()
        }
    }
}

impl Drop for IdLists {
    fn drop(&mut self) {
        // SAFETY: NULL or lists libdag gave us; freed once.
        unsafe { sys::dag_id_lists_free(self.0) }
    }
}

/// Calls a libdag function that returns lists of ids through `dag_id_lists **`.
pub(crate) fn call_id_lists<F>(call: F) -> Result<Vec<Vec<VertexId>>>
where
    F: FnOnce(*mut *mut sys::dag_id_lists, *mut *mut sys::dag_error) -> c_int,
{
    let mut lists = IdLists(ptr::null_mut());
    let mut err = ptr::null_mut();
    let status = call(&mut lists.0, &mut err);
    // SAFETY: err comes straight from the call.
    unsafe { check(status, err)? };
    Ok(lists.to_vecs())
}

/// An owned `char *` from libdag.
pub(crate) struct OwnedString(pub(crate) *mut c_char);

impl Drop for OwnedString {
    fn drop(&mut self) {
        // SAFETY: NULL or a string libdag gave us; freed once.
        unsafe { sys::dag_string_free(self.0) }
    }
}

/// Calls a libdag function that returns a string through `char **`.
pub(crate) fn call_string<F>(call: F) -> Result<String>
where
    F: FnOnce(*mut *mut c_char, *mut *mut sys::dag_error) -> c_int,
{
    let mut text = OwnedString(ptr::null_mut());
    let mut err = ptr::null_mut();
    let status = call(&mut text.0, &mut err);
    // SAFETY: err comes straight from the call; on success text is a
    // NUL-terminated string owned by the guard.
    unsafe {
        check(status, err)?;
        Ok(lossy_string(text.0))
    }
}

/// The text of a panic payload, as `panic!` and `std::thread` print it.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "Box<dyn Any>"
    }
}

/// Drops a panic payload where unwinding must not escape (a callback called
/// from C): a payload whose own `Drop` panics is forgotten instead.
pub(crate) fn drop_payload(payload: Box<dyn Any + Send>) {
    let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(payload)));
    if let Err(second) = dropped {
        std::mem::forget(second);
    }
}
