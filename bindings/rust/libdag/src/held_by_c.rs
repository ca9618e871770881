//! Values whose address libdag holds as a callback's `user_data`.

use std::marker::PhantomData;
use std::ptr::NonNull;

/// A boxed value that libdag reaches through a raw pointer while Rust owns
/// it. Kept as the pointer `Box::into_raw` gave, not as a `Box`: moving a
/// `Box` (into a struct, out of a function) asserts that it is the only way
/// to its value, which under Rust's aliasing rules invalidates the pointer
/// libdag was given before the move; this handle moves freely. Freed on
/// drop, as the `Box` was.
pub(crate) struct HeldByC<T: ?Sized> {
    ptr: NonNull<T>,
    _owns: PhantomData<Box<T>>,
}

impl<T: ?Sized> HeldByC<T> {
    pub(crate) fn new(value: Box<T>) -> Self {
        Self {
            // SAFETY: Box::into_raw never returns NULL.
            ptr: unsafe { NonNull::new_unchecked(Box::into_raw(value)) },
            _owns: PhantomData,
        }
    }

    /// The pointer to give libdag, and to reach the value through.
    pub(crate) fn as_ptr(&self) -> *mut T {
        self.ptr.as_ptr()
    }
}

impl<T: ?Sized> Drop for HeldByC<T> {
    fn drop(&mut self) {
        // SAFETY: from Box::into_raw in `new`, freed only here.
        drop(unsafe { Box::from_raw(self.ptr.as_ptr()) });
    }
}

// SAFETY: it owns its value as a Box does.
unsafe impl<T: ?Sized + Send> Send for HeldByC<T> {}
// SAFETY: as for Send.
unsafe impl<T: ?Sized + Sync> Sync for HeldByC<T> {}
