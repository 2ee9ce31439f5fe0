//! Library errors as typed Python exceptions.
//!
//! Every error compclust reports is a `compclust.CompclustError`, a subclass of `ValueError`
//! (so `except ValueError` keeps working), with one subclass per kind of failure: the input
//! data, a parameter, a size limit, and one per algorithm family. An error caused by the file
//! system is an `OSError` instead (`FileNotFoundError`, `IsADirectoryError`, … as Python picks
//! from the error number), naming the file.

use std::error::Error;

use pyo3::PyErr;
use pyo3::exceptions::PyOSError;

/// The exception classes, defined (with their documentation) in `compclust._errors` and
/// imported from there when first raised.
pub mod exc {
    pyo3::import_exception!(compclust._errors, DataError);
    pyo3::import_exception!(compclust._errors, ParameterError);
    pyo3::import_exception!(compclust._errors, LimitError);
    pyo3::import_exception!(compclust._errors, FlatError);
    pyo3::import_exception!(compclust._errors, HierarchyError);
    pyo3::import_exception!(compclust._errors, EmbeddingError);
    pyo3::import_exception!(compclust._errors, OverlapError);
    pyo3::import_exception!(compclust._errors, MetricError);
    pyo3::import_exception!(compclust._errors, ModelError);
}

/// The first I/O error in the chain of causes of `e`.
fn io_cause<'a>(e: &'a (dyn Error + 'static)) -> Option<&'a std::io::Error> {
    let mut cur = Some(e);
    while let Some(c) = cur {
        if let Some(io) = c.downcast_ref::<std::io::Error>() {
            return Some(io);
        }
        cur = c.source();
    }
    None
}

/// `OSError(errno, message)`: Python turns it into the subclass of the error number
/// (`FileNotFoundError` for ENOENT, …). The message is the library's, which names the file.
fn os_error(io: &std::io::Error, message: String) -> PyErr {
    match io.raw_os_error() {
        Some(errno) => PyOSError::new_err((errno, message)),
        None => PyOSError::new_err(message),
    }
}

/// A library error as a Python exception: `OSError` when the file system caused it, else
/// `class` with the library's message.
pub fn raise<E: Error + 'static>(e: &E, class: fn(String) -> PyErr) -> PyErr {
    match io_cause(e) {
        Some(io) => os_error(io, e.to_string()),
        None => class(e.to_string()),
    }
}

/// A library error type that has a Python exception class.
pub trait Raise {
    /// This error as a Python exception.
    fn py(self) -> PyErr;
}

macro_rules! raise_as {
    ($($t:ty => $class:ident),* $(,)?) => {
        $(impl Raise for $t {
            fn py(self) -> PyErr {
                raise(&self, |m| exc::$class::new_err(m))
            }
        })*
    };
}

raise_as!(
    compclust::data::DataError => DataError,
    compclust::flat::FlatError => FlatError,
    compclust::sdp::SdpError => FlatError,
    compclust::hierarchy::HierarchyError => HierarchyError,
    compclust::hierarchy::DendrogramError => HierarchyError,
    compclust::embed::tste::TsteError => EmbeddingError,
    compclust::overlap::OverlapError => OverlapError,
    compclust::metrics::MetricError => MetricError,
    compclust::metrics::triplet::TripletMetricError => MetricError,
    compclust::models::ModelError => ModelError,
    compclust::simulate::OracleError => ModelError,
);

impl Raise for compclust::embed::EmbedError {
    fn py(self) -> PyErr {
        use compclust::embed::EmbedError as E;
        match self {
            E::TooManyItems { .. } => exc::LimitError::new_err(self.to_string()),
            E::InvalidParam { .. } => exc::ParameterError::new_err(self.to_string()),
            _ => exc::EmbeddingError::new_err(self.to_string()),
        }
    }
}

impl Raise for compclust::similarity::SimilarityError {
    fn py(self) -> PyErr {
        use compclust::similarity::SimilarityError as E;
        match self {
            E::TooManyItems { .. } => exc::LimitError::new_err(self.to_string()),
            _ => exc::DataError::new_err(self.to_string()),
        }
    }
}

/// A `DataError` from a message of this layer (bad rows of `X`, `y` or `answers`).
pub fn data_error(message: impl Into<String>) -> PyErr {
    exc::DataError::new_err(message.into())
}

/// A `ParameterError` from a message of this layer.
pub fn parameter_error(message: impl Into<String>) -> PyErr {
    exc::ParameterError::new_err(message.into())
}
