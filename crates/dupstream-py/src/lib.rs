//! `dupstream._dupstream`: the Python extension module behind the `dupstream` package
//! (`python/dupstream/`). A thin binding: every structure, stream, ground truth and run is the
//! other crates' own; this crate converts arguments (numpy arrays without per-element Python
//! objects), releases the GIL around the work, and turns errors into Python exceptions with
//! the command line's one-line messages.
//!
//! A structure or a stream named from Python is read exactly as an experiment file's
//! `[[algorithm]]` or `[stream]` table: the binding writes a one-cell experiment and validates
//! it with the runner's own parser, so the names, parameters, defaults and errors are the TOML
//! files', and the cell's seeds ([`dupstream_runner::plan::seeds`]) are those a run gives it.

use dupstream_filters::hash::hash_key;
use dupstream_filters::spec::FilterSpec;
use dupstream_filters::{DuplicateFilter, ParamValue};
use dupstream_runner::orchestrate::{RunOptions, run_hosted};
use dupstream_runner::plan::seeds::{filter_seed, hash_seed};
use dupstream_runner::plan::{ConfigError, Experiment, Registry, StructureSpec};
use dupstream_streams::replay::fingerprint as replay_fingerprint;
use dupstream_streams::{GroundTruth, WindowTruth};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Keys hashed and stepped per chunk: the runner's batch (its cell loop's), so the hashes stay
/// in cache and a long array is stepped exactly as a run steps its stream.
const CHUNK: usize = dupstream_runner::plan::cost::BATCH;

/// The file name errors name for what was built from Python.
const FILTER_SOURCE: &str = "dupstream.Filter";
const STREAM_SOURCE: &str = "dupstream.stream";

/// A runner error as Python's `ValueError` (bad input, exit 2 on the command line) or
/// `RuntimeError`, with the command line's one-line message (`{:#}`: the context chain).
fn runner_error(e: anyhow::Error) -> PyErr {
    let bad = e.downcast_ref::<ConfigError>().is_some()
        || e.downcast_ref::<dupstream_runner::plan::BadInput>()
            .is_some();
    let msg = format!("{e:#}");
    if bad {
        PyValueError::new_err(msg)
    } else {
        PyRuntimeError::new_err(msg)
    }
}

/// An experiment error without its line: the line is the generated text's, not the user's.
fn config_error(mut e: ConfigError) -> PyErr {
    e.line = None;
    PyValueError::new_err(e.to_string())
}

/// A Python value as a TOML value: bool, int, float, str, and lists and dicts of them.
fn to_toml(v: &Bound<'_, PyAny>, key: &str) -> PyResult<toml::Value> {
    if v.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        let i: i64 = v.extract().map_err(|_| {
            PyValueError::new_err(format!("{key}: {v} does not fit in a 64-bit integer"))
        })?;
        return Ok(toml::Value::Integer(i));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(v.extract()?));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(toml::Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        return Ok(toml::Value::Table(to_table(d)?));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items: PyResult<Vec<toml::Value>> = v.try_iter()?.map(|x| to_toml(&x?, key)).collect();
        return Ok(toml::Value::Array(items?));
    }
    // numpy scalars and other numbers: their Python int or float.
    if let Ok(i) = v.call_method0("__index__") {
        return to_toml(&i, key);
    }
    if let Ok(f) = v.call_method0("__float__") {
        return to_toml(&f, key);
    }
    Err(PyTypeError::new_err(format!(
        "{key}: {} is not a TOML value (bool, int, float, str, list or dict)",
        v.get_type().name()?
    )))
}

/// A Python dict (string keys) as a TOML table.
fn to_table(d: &Bound<'_, PyDict>) -> PyResult<toml::Table> {
    let mut t = toml::Table::new();
    for (k, v) in d.iter() {
        let k: String = k
            .extract()
            .map_err(|_| PyTypeError::new_err("keys must be strings"))?;
        let value = to_toml(&v, &k)?;
        t.insert(k, value);
    }
    Ok(t)
}

/// A one-cell experiment around a `[[algorithm]]` table and a `[stream]` table, validated by
/// the runner's parser (`source` names it in errors).
fn one_cell(
    source: &str,
    stream: toml::Table,
    memory: &str,
    seed: u64,
    algorithm: toml::Table,
) -> PyResult<Experiment> {
    let mut grid = toml::Table::new();
    grid.insert("memory".into(), toml::Value::Array(vec![memory.into()]));
    let seed = i64::try_from(seed)
        .map_err(|_| PyValueError::new_err(format!("seed {seed} is above 2^63 - 1")))?;
    grid.insert("seeds".into(), toml::Value::Array(vec![seed.into()]));
    let mut exp = toml::Table::new();
    exp.insert("name".into(), "python".into());
    exp.insert("description".into(), source.into());
    exp.insert("stream".into(), toml::Value::Table(stream));
    exp.insert("grid".into(), toml::Value::Table(grid));
    exp.insert(
        "algorithm".into(),
        toml::Value::Array(vec![toml::Value::Table(algorithm)]),
    );
    let text =
        toml::to_string(&exp).map_err(|e| PyValueError::new_err(format!("{source}: {e}")))?;
    dupstream_runner::plan::parse_with(Path::new(source), &text, Some(1), &Registry::builtin())
        .map_err(config_error)
}

/// A memory size given as bits (int) or with a unit (str), as the experiment files write it.
fn memory_text(memory: &Bound<'_, PyAny>) -> PyResult<String> {
    if memory.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(
            "memory must be a size (str) or bits (int)",
        ));
    }
    if let Ok(s) = memory.cast::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    if memory.is_instance_of::<PyInt>() || memory.hasattr("__index__")? {
        let i: i128 = memory.call_method0("__index__")?.extract()?;
        return Ok(i.to_string());
    }
    Err(PyTypeError::new_err(format!(
        "memory must be a size (str, e.g. \"64MB\") or a number of bits (int), not {}",
        memory.get_type().name()?
    )))
}

/// The stream every [`Filter`]'s experiment names (never opened).
fn placeholder_stream() -> toml::Table {
    let mut s = toml::Table::new();
    s.insert("kind".into(), "uniform".into());
    s.insert("n".into(), 1000.into());
    s.insert("universe".into(), 1000.into());
    s
}

/// Keys given to a filter: a contiguous `uint64` array (borrowed), or keys copied (a
/// non-contiguous array, or `str`/`bytes` fingerprinted as a replay does).
enum Keys<'py> {
    Borrowed(PyReadonlyArray1<'py, u64>),
    Owned(Vec<u64>),
}

impl Keys<'_> {
    fn as_slice(&self) -> &[u64] {
        match self {
            Keys::Borrowed(a) => a.as_slice().expect("checked contiguous"),
            Keys::Owned(v) => v,
        }
    }
}

/// A numpy array's dtype name, for errors.
fn dtype_name(a: &Bound<'_, PyUntypedArray>) -> String {
    a.dtype()
        .str()
        .map_or_else(|_| "?".into(), |s| s.to_string())
}

/// `keys` as `u64`s: a one-dimensional numpy `uint64` array, or a sequence of `str`/`bytes`
/// (fingerprinted with `fingerprint_seed`, as a replay with that seed does).
fn keys_of<'py>(keys: &Bound<'py, PyAny>, fingerprint_seed: u64) -> PyResult<Keys<'py>> {
    if let Ok(a) = keys.cast::<PyUntypedArray>() {
        if a.ndim() != 1 {
            return Err(PyValueError::new_err(format!(
                "keys must be a one-dimensional array, not {}-dimensional",
                a.ndim()
            )));
        }
        let Ok(typed) = a.cast::<PyArray1<u64>>() else {
            return Err(PyTypeError::new_err(format!(
                "keys must be a numpy uint64 array, not {} (convert with keys.astype(numpy.uint64), or give str/bytes keys)",
                dtype_name(a)
            )));
        };
        let ro = typed.readonly();
        if ro.as_slice().is_ok() {
            return Ok(Keys::Borrowed(ro));
        }
        return Ok(Keys::Owned(ro.as_array().iter().copied().collect()));
    }
    if keys.is_instance_of::<PyString>() || keys.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err(
            "keys must be a sequence of keys, not one str or bytes (wrap it in a list)",
        ));
    }
    let Ok(iter) = keys.try_iter() else {
        return Err(PyTypeError::new_err(format!(
            "keys must be a numpy uint64 array or a sequence of str/bytes, not {}",
            keys.get_type().name()?
        )));
    };
    let mut out = Vec::new();
    for k in iter {
        let k = k?;
        let fp = if let Ok(s) = k.cast::<PyString>() {
            replay_fingerprint(s.to_cow()?.as_bytes(), fingerprint_seed)
        } else if let Ok(b) = k.cast::<PyBytes>() {
            replay_fingerprint(b.as_bytes(), fingerprint_seed)
        } else {
            return Err(PyTypeError::new_err(format!(
                "a sequence of keys must hold str or bytes (fingerprinted as a replay does), not {}; give integer keys as a numpy uint64 array",
                k.get_type().name()?
            )));
        };
        out.push(fp);
    }
    Ok(Keys::Owned(out))
}

/// `times` as a contiguous `f64` slice of `len` values.
fn times_of(times: &Bound<'_, PyAny>, len: usize) -> PyResult<Vec<f64>> {
    let Ok(a) = times.cast::<PyUntypedArray>() else {
        return Err(PyTypeError::new_err(format!(
            "times must be a numpy float64 array, not {}",
            times.get_type().name()?
        )));
    };
    let Ok(typed) = a.cast::<PyArray1<f64>>() else {
        return Err(PyTypeError::new_err(format!(
            "times must be a one-dimensional numpy float64 array, not {} with {} dimension(s)",
            dtype_name(a),
            a.ndim()
        )));
    };
    let ro = typed.readonly();
    let v: Vec<f64> = match ro.as_slice() {
        Ok(s) => s.to_vec(),
        Err(_) => ro.as_array().iter().copied().collect(),
    };
    if v.len() != len {
        return Err(PyValueError::new_err(format!(
            "{} times for {len} keys: give one time per key",
            v.len()
        )));
    }
    Ok(v)
}

/// A Python value of a structure parameter.
fn param_value(py: Python<'_>, v: &ParamValue) -> PyResult<Py<PyAny>> {
    Ok(match *v {
        ParamValue::UInt(u) => u.into_pyobject(py)?.into_any().unbind(),
        ParamValue::Float(f) => f.into_pyobject(py)?.into_any().unbind(),
        ParamValue::Bool(b) => PyBool::new(py, b).to_owned().into_any().unbind(),
        ParamValue::Word(w) => w.into_pyobject(py)?.into_any().unbind(),
        ParamValue::Absent => py.None(),
        _ => v.to_string().into_pyobject(py)?.into_any().unbind(),
    })
}

/// A Python string literal.
fn py_str(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// A TOML value as a Python literal, for `repr`.
fn py_literal(v: &toml::Value) -> String {
    match v {
        toml::Value::Boolean(true) => "True".into(),
        toml::Value::Boolean(false) => "False".into(),
        toml::Value::String(s) => py_str(s),
        toml::Value::Table(t) => {
            let items: Vec<String> = t
                .iter()
                .map(|(k, x)| format!("{}: {}", py_str(k), py_literal(x)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        toml::Value::Array(a) => {
            let items: Vec<String> = a.iter().map(py_literal).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

/// The state a filter's calls share: the structure and a buffer for the key hashes.
struct State {
    filter: Box<dyn DuplicateFilter>,
    hashes: Vec<u64>,
}

impl State {
    /// Hashes `keys` with `hseed` and steps the structure over them, chunk by chunk, with
    /// their `times` when given; the verdicts go to `out`.
    fn step(&mut self, hseed: u64, keys: &[u64], times: Option<&[f64]>, out: &mut [bool]) {
        self.hashes.resize(CHUNK.min(keys.len()), 0);
        for (c, chunk) in keys.chunks(CHUNK).enumerate() {
            let hashes = &mut self.hashes[..chunk.len()];
            for (h, &k) in hashes.iter_mut().zip(chunk) {
                *h = hash_key(k, hseed);
            }
            let at = c * CHUNK;
            let out = &mut out[at..at + chunk.len()];
            match times {
                None => self.filter.step_batch(hashes, out),
                Some(t) => self
                    .filter
                    .step_batch_at(hashes, &t[at..at + chunk.len()], out),
            }
        }
    }
}

/// A duplicate-detection structure of the registry, by name, with an experiment file's
/// `[[algorithm]]` parameters as keyword arguments: `Filter("bsbf", memory="64MB", k=2,
/// seed=1)`. Built as a run builds the cell of that structure and memory size for replicate
/// seed `seed` (the same budget, structure seed and key hash), so that `step` over a stream's
/// keys gives the verdicts `raw.csv` counts. `memory` bounds the state (`[grid] budget =
/// "state"`); a cell of a held-budget run is rebuilt from its `memory_bits_budget`. A bad name or parameter raises `ValueError` with
/// the command line's message.
#[pyclass(module = "dupstream", name = "Filter")]
struct Filter {
    state: Mutex<State>,
    spec: Arc<dyn StructureSpec>,
    name: String,
    /// The parameters as given (TOML), for `repr`.
    given: toml::Table,
    memory: String,
    budget_bits: u64,
    seed: u64,
    hash_seed: u64,
    filter_seed: u64,
    cells_per_element: Option<f64>,
    fingerprint_seed: u64,
}

impl Filter {
    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, State>> {
        self.state
            .lock()
            .map_err(|_| PyRuntimeError::new_err("a previous call panicked"))
    }

    fn run_keys(
        &self,
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        times: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyArray1<bool>>> {
        let keys = keys_of(keys, self.fingerprint_seed)?;
        let slice = keys.as_slice();
        let times = times.map(|t| times_of(t, slice.len())).transpose()?;
        let mut guard = self.lock()?;
        let state: &mut State = &mut guard;
        let hseed = self.hash_seed;
        let out = py.detach(|| {
            let mut out = vec![false; slice.len()];
            state.step(hseed, slice, times.as_deref(), &mut out);
            out
        });
        Ok(PyArray1::from_vec(py, out).unbind())
    }
}

#[pymethods]
impl Filter {
    #[new]
    #[pyo3(signature = (name, memory, seed = 1, fingerprint_seed = 0, **params))]
    fn new(
        name: &str,
        memory: &Bound<'_, PyAny>,
        seed: u64,
        fingerprint_seed: u64,
        params: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let memory = memory_text(memory)?;
        let mut table = toml::Table::new();
        table.insert("name".into(), name.into());
        let given = match params {
            Some(d) => to_table(d)?,
            None => toml::Table::new(),
        };
        for (k, v) in &given {
            if k == "label" || k == "name" {
                return Err(PyValueError::new_err(format!(
                    "{FILTER_SOURCE}: key `{k}`: not a structure parameter"
                )));
            }
            if v.is_array() {
                return Err(PyValueError::new_err(format!(
                    "{FILTER_SOURCE}: key `{k}`: one value, not a list (an experiment file sweeps a list; build one Filter per value)"
                )));
            }
            table.insert(k.clone(), v.clone());
        }
        let exp = one_cell(
            FILTER_SOURCE,
            placeholder_stream(),
            &memory,
            seed,
            table.clone(),
        )?;
        let cell = exp
            .cells
            .first()
            .ok_or_else(|| PyRuntimeError::new_err("the experiment has no cell"))?;
        let fseed = filter_seed(seed, cell);
        let filter = cell.filter.build(cell.budget_bits, fseed).map_err(|e| {
            PyValueError::new_err(format!("{FILTER_SOURCE}: building {name} at {memory}: {e}"))
        })?;
        let cells_per_element = toml::Value::Table(table)
            .try_into::<FilterSpec>()
            .ok()
            .map(|s| s.cells_per_element(cell.budget_bits));
        Ok(Self {
            state: Mutex::new(State {
                filter,
                hashes: Vec::new(),
            }),
            spec: Arc::clone(&cell.filter),
            name: name.to_string(),
            given,
            memory,
            budget_bits: cell.budget_bits,
            seed,
            hash_seed: hash_seed(seed),
            filter_seed: fseed,
            cells_per_element,
            fingerprint_seed,
        })
    }

    /// Verdicts for `keys`, in order (`True`: reported a duplicate).
    fn step(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<Py<PyArray1<bool>>> {
        self.run_keys(py, keys, None)
    }

    /// Verdicts for `keys` arriving at `times` (seconds, non-decreasing).
    fn step_at(
        &self,
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        times: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyArray1<bool>>> {
        self.run_keys(py, keys, Some(times))
    }

    /// The structure's registry name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The memory size as given.
    #[getter]
    fn memory(&self) -> &str {
        &self.memory
    }

    /// The budget the structure was built with, in bits (`raw.csv`'s `memory_bits_budget`).
    #[getter]
    fn budget_bits(&self) -> u64 {
        self.budget_bits
    }

    /// The bits the structure uses, at most the budget (`raw.csv`'s `memory_bits`).
    #[getter]
    fn memory_bits(&self) -> PyResult<u64> {
        Ok(self.lock()?.filter.memory_bits())
    }

    /// The replicate seed.
    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }

    /// The key-hash seed derived from the replicate seed.
    #[getter]
    fn hash_seed(&self) -> u64 {
        self.hash_seed
    }

    /// The structure's own seed, derived from the replicate seed, its name and memory.
    #[getter]
    fn filter_seed(&self) -> u64 {
        self.filter_seed
    }

    /// The seed `str`/`bytes` keys are fingerprinted with.
    #[getter]
    fn fingerprint_seed(&self) -> u64 {
        self.fingerprint_seed
    }

    /// Random memory cells an element touches (the cost model's count).
    #[getter]
    fn cells_per_element(&self) -> Option<f64> {
        self.cells_per_element
    }

    /// The structure's parameters, given and derived (`None`: left unset).
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for p in self.lock()?.filter.params() {
            d.set_item(p.name, param_value(py, &p.value)?)?;
        }
        Ok(d)
    }

    /// The `params` column of `raw.csv` (`k=v;…`).
    #[getter]
    fn params_text(&self) -> PyResult<String> {
        let params = self.lock()?.filter.params();
        Ok(params
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(";"))
    }

    /// `(kind, value)`: what the occupancy measures, and its value now.
    #[getter]
    fn occupancy(&self) -> PyResult<(String, f64)> {
        let o = self.lock()?.filter.occupancy();
        Ok((o.kind.as_str().to_string(), o.value))
    }

    /// A fresh copy: the same structure, parameters and seeds, empty.
    fn reset(&self) -> PyResult<()> {
        let f = self
            .spec
            .build(self.budget_bits, self.filter_seed)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        self.lock()?.filter = f;
        Ok(())
    }

    fn __repr__(&self) -> PyResult<String> {
        let mut s = format!(
            "Filter({}, memory={}, seed={}",
            py_str(&self.name),
            py_str(&self.memory),
            self.seed
        );
        for (k, v) in &self.given {
            s += &format!(", {k}={}", py_literal(v));
        }
        s += &format!(
            ")  # {} bits used: {}",
            self.memory_bits()?,
            self.params_text()?
        );
        Ok(s)
    }

    /// The Rust batch path alone, for the benchmark: `keys` hashed and stepped by a loop in
    /// Rust (the runner's cell loop, without its scoring) in chunks of `batch` keys, at most
    /// the runner's batch, on a fresh copy of this filter; returns the seconds it took.
    fn _rust_batch_secs(
        &self,
        py: Python<'_>,
        keys: PyReadonlyArray1<'_, u64>,
        batch: usize,
    ) -> PyResult<f64> {
        let keys = keys
            .as_slice()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let mut f = self
            .spec
            .build(self.budget_bits, self.filter_seed)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        let hseed = self.hash_seed;
        let batch = batch.clamp(1, CHUNK);
        Ok(py.detach(|| {
            let mut hashes = vec![0u64; batch];
            let mut out = vec![false; batch];
            let start = std::time::Instant::now();
            for chunk in keys.chunks(batch) {
                let h = &mut hashes[..chunk.len()];
                for (h, &k) in h.iter_mut().zip(chunk) {
                    *h = hash_key(k, hseed);
                }
                f.step_batch(h, &mut out[..chunk.len()]);
                std::hint::black_box(&out);
            }
            start.elapsed().as_secs_f64()
        }))
    }
}

/// A TOML value as a Python one.
fn to_py<'py>(py: Python<'py>, v: &toml::Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        toml::Value::String(s) => s.into_pyobject(py)?.into_any(),
        toml::Value::Integer(i) => i.into_pyobject(py)?.into_any(),
        toml::Value::Float(f) => f.into_pyobject(py)?.into_any(),
        toml::Value::Boolean(b) => PyBool::new(py, *b).to_owned().into_any(),
        toml::Value::Datetime(d) => d.to_string().into_pyobject(py)?.into_any(),
        toml::Value::Array(a) => {
            let items: PyResult<Vec<Bound<'py, PyAny>>> = a.iter().map(|x| to_py(py, x)).collect();
            PyList::new(py, items?)?.into_any()
        }
        toml::Value::Table(t) => {
            let d = PyDict::new(py);
            for (k, x) in t {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// Every parameter set the registry-wide tests use, as `[[algorithm]]` tables (dicts with
/// `name` and the structure's parameters); at least one per registered structure.
#[pyfunction]
fn parameter_sets(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyAny>>> {
    dupstream_filters::parameter_sets::ALL
        .iter()
        .map(|s| {
            let t: toml::Table =
                toml::from_str(s.toml).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
            to_py(py, &toml::Value::Table(t))
        })
        .collect()
}

/// The names of every registered structure.
#[pyfunction]
fn structures() -> Vec<String> {
    Registry::builtin().names()
}

/// Fingerprints of `str`/`bytes` keys, as a replay with `seed` computes them.
#[pyfunction]
#[pyo3(signature = (keys, seed = 0))]
fn fingerprint<'py>(
    py: Python<'py>,
    keys: &Bound<'py, PyAny>,
    seed: u64,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    if keys.cast::<PyUntypedArray>().is_ok() {
        return Err(PyTypeError::new_err(
            "fingerprint takes a sequence of str or bytes; a numpy array of keys is used as it is",
        ));
    }
    match keys_of(keys, seed)? {
        Keys::Owned(v) => Ok(PyArray1::from_vec(py, v)),
        Keys::Borrowed(a) => Ok(PyArray1::from_slice(py, a.as_slice()?)),
    }
}

/// The seeded key hash of `keys` for replicate seed `seed` (what a structure receives).
#[pyfunction]
#[pyo3(signature = (keys, seed = 1))]
fn hash_keys<'py>(
    py: Python<'py>,
    keys: &Bound<'py, PyAny>,
    seed: u64,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    let keys = keys_of(keys, 0)?;
    let s = keys.as_slice();
    let hs = hash_seed(seed);
    let out = py.detach(|| s.iter().map(|&k| hash_key(k, hs)).collect::<Vec<u64>>());
    Ok(PyArray1::from_vec(py, out))
}

/// A stream of the project: `(keys, times or None, label, seed)`.
#[pyfunction]
#[pyo3(signature = (seed, params))]
#[allow(clippy::type_complexity)]
fn _stream<'py>(
    py: Python<'py>,
    seed: u64,
    params: &Bound<'py, PyDict>,
) -> PyResult<(
    Bound<'py, PyArray1<u64>>,
    Option<Bound<'py, PyArray1<f64>>>,
    String,
)> {
    let table = to_table(params)?;
    if let Some((k, _)) = table.iter().find(|(_, v)| v.is_array()) {
        return Err(PyValueError::new_err(format!(
            "{STREAM_SOURCE}: key `{k}`: one value, not a list (an experiment file sweeps a list)"
        )));
    }
    let mut alg = toml::Table::new();
    alg.insert("name".into(), "exact".into());
    let exp = one_cell(STREAM_SOURCE, table, "1KB", seed, alg)?;
    let case = exp
        .streams
        .first()
        .ok_or_else(|| PyRuntimeError::new_err("the experiment has no stream"))?
        .clone();
    let label = case.label();
    let (keys, times) = py
        .detach(move || -> anyhow::Result<(Vec<u64>, Option<Vec<f64>>)> {
            let mut keys =
                Vec::with_capacity(case.spec.declared_len().unwrap_or(0).min(1 << 28) as usize);
            let mut buf = vec![0u64; CHUNK];
            match &case.time {
                None => {
                    let mut s = case.spec.open()?;
                    loop {
                        let k = s.fill(&mut buf)?;
                        if k == 0 {
                            return Ok((keys, None));
                        }
                        keys.extend_from_slice(&buf[..k]);
                    }
                }
                Some(t) => {
                    let mut s = dupstream_streams::open_timed(&case.spec, t, case.seed)?;
                    let mut times = Vec::with_capacity(keys.capacity());
                    let mut tbuf = vec![0f64; CHUNK];
                    loop {
                        let k = s.fill_timed(&mut buf, &mut tbuf)?;
                        if k == 0 {
                            return Ok((keys, Some(times)));
                        }
                        keys.extend_from_slice(&buf[..k]);
                        times.extend_from_slice(&tbuf[..k]);
                    }
                }
            }
        })
        .map_err(|e| PyValueError::new_err(format!("{STREAM_SOURCE}: {e:#}")))?;
    Ok((
        PyArray1::from_vec(py, keys),
        times.map(|t| PyArray1::from_vec(py, t)),
        label,
    ))
}

/// Unpacks label words into one bool per position.
fn unpack(words: &[u64], n: usize) -> Vec<bool> {
    (0..n)
        .map(|i| (words[i >> 6] >> (i & 63)) & 1 == 1)
        .collect()
}

/// Exact labels of `keys` (`True`: a duplicate): since the start, within the last `window`
/// elements, or within `seconds` of `times`.
#[pyfunction]
#[pyo3(signature = (keys, window = None, seconds = None, times = None))]
fn _truth<'py>(
    py: Python<'py>,
    keys: &Bound<'py, PyAny>,
    window: Option<u64>,
    seconds: Option<f64>,
    times: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyArray1<bool>>> {
    let keys = keys_of(keys, 0)?;
    let s = keys.as_slice();
    let times = times.map(|t| times_of(t, s.len())).transpose()?;
    let labels = py
        .detach(|| -> dupstream_streams::Result<Vec<bool>> {
            let n = s.len();
            Ok(match (window, seconds, &times) {
                (None, None, _) => unpack(GroundTruth::from_keys(s, None, None)?.label_words(), n),
                (Some(w), None, _) => {
                    unpack(WindowTruth::from_keys(s, None, w, None)?.label_words(), n)
                }
                (None, Some(t), Some(times)) => unpack(
                    WindowTruth::from_timed_keys(s, times, None, t, None)?.label_words(),
                    n,
                ),
                _ => unreachable!("checked by the Python wrapper"),
            })
        })
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(PyArray1::from_vec(py, labels))
}

/// Runs the experiment file `path` through the runner library; returns its results directory.
#[pyfunction]
#[pyo3(signature = (path, scale = None, threads = None, out = None, results_root = "results".into(), resume = false, quiet = true))]
#[allow(clippy::too_many_arguments)]
fn _run(
    py: Python<'_>,
    path: PathBuf,
    scale: Option<u64>,
    threads: Option<usize>,
    out: Option<PathBuf>,
    results_root: PathBuf,
    resume: bool,
    quiet: bool,
) -> PyResult<String> {
    let opts = RunOptions {
        experiment: path,
        scale,
        threads,
        out,
        resume,
        results_root,
        quiet,
        shard: None,
        json: false,
        diff: false,
    };
    let dir = py
        .detach(|| run_hosted(&opts, &Registry::builtin()))
        .map_err(runner_error)?;
    Ok(dir.display().to_string())
}

/// A Python dict as the text of an experiment file.
#[pyfunction]
fn _toml_text(d: &Bound<'_, PyDict>) -> PyResult<String> {
    toml::to_string(&to_table(d)?).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The leaderboard's boards, as `dupstream leaderboard --json` prints them, each with its
/// run's directory.
#[pyfunction]
#[pyo3(signature = (dirs, prefix = None, canonical = None))]
fn _leaderboard_json(
    py: Python<'_>,
    dirs: Vec<PathBuf>,
    prefix: Option<String>,
    canonical: Option<PathBuf>,
) -> PyResult<String> {
    let ranked = py
        .detach(|| {
            dupstream_runner::report::leaderboard_page::rank(
                &dirs,
                prefix.as_deref(),
                canonical.as_deref(),
                &Registry::builtin(),
            )
        })
        .map_err(runner_error)?;
    let boards: Vec<serde_json::Value> = ranked
        .boards
        .iter()
        .map(|(id, b)| {
            let mut v = serde_json::to_value(b).unwrap_or(serde_json::Value::Null);
            if let Some(o) = v.as_object_mut() {
                o.insert("id".into(), id.clone().into());
            }
            v
        })
        .collect();
    serde_json::to_string(&boards).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

#[pymodule]
fn _dupstream(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Filter>()?;
    m.add_function(wrap_pyfunction!(structures, m)?)?;
    m.add_function(wrap_pyfunction!(parameter_sets, m)?)?;
    m.add_function(wrap_pyfunction!(fingerprint, m)?)?;
    m.add_function(wrap_pyfunction!(hash_keys, m)?)?;
    m.add_function(wrap_pyfunction!(_stream, m)?)?;
    m.add_function(wrap_pyfunction!(_truth, m)?)?;
    m.add_function(wrap_pyfunction!(_run, m)?)?;
    m.add_function(wrap_pyfunction!(_toml_text, m)?)?;
    m.add_function(wrap_pyfunction!(_leaderboard_json, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
