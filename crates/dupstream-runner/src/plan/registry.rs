//! The structures an experiment file may name: every structure of `dupstream_filters`, and any
//! structure a user's crate registers, without forking the runner: by type when it implements
//! the filters crate's construction trait ([`Registry::with_structure`]), else with closures
//! ([`Registry::with`] a [`CustomStructure`]).
//!
//! ```
//! use dupstream_filters::bloom::{BloomFilter, BloomParams};
//! use dupstream_runner::plan::{CustomStructure, Registry};
//!
//! // A Bloom filter under another name, costed like a k=2 Bloom step.
//! let registry = Registry::builtin().with(
//!     CustomStructure::new("my_bloom", |p: &BloomParams, budget_bits, seed| {
//!         BloomFilter::new(budget_bits, p, seed)
//!     })
//!     .memory_bits_for(|p: &BloomParams, budget_bits| BloomFilter::memory_bits_for(budget_bits, p))
//!     .cost(1.0),
//! );
//! assert!(registry.names().contains(&"my_bloom".to_string()));
//! ```
//!
//! A cell holds its structure as an [`Arc<dyn StructureSpec>`](StructureSpec): the parameters
//! of one `[[algorithm]]` combination, ready to be built at any memory size.

use dupstream_filters::spec::FilterSpec;
use dupstream_filters::{DuplicateFilter, Structure as FilterStructure};
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// Why a structure cannot be built (or sized) at a memory budget: a built-in structure's own
/// error, or a user's structure's message.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A structure of the filters crate refused its parameters or its budget.
    #[error(transparent)]
    Filter(#[from] dupstream_filters::Error),
    /// A user's structure ([`CustomStructure`]) refused, in its own words.
    #[error("{0}")]
    Custom(String),
}

/// A structure with its parameters: what a cell builds and what the cost model prices.
pub trait StructureSpec: Send + Sync + fmt::Debug {
    /// The name used in experiment and result files.
    fn name(&self) -> &str;
    /// Builds the structure within `budget_bits` bits, seeded with `seed`.
    fn build(&self, budget_bits: u64, seed: u64) -> Result<Box<dyn DuplicateFilter>, BuildError>;
    /// The bits the structure would use within `budget_bits`, without allocating; also
    /// validates the parameters.
    fn memory_bits_for(&self, budget_bits: u64) -> Result<u64, BuildError>;
    /// Work per element relative to a k=2 Bloom-filter step, at `budget_bits` (what
    /// [`step_ns`](Self::step_ns) scales when nothing better is known).
    fn relative_cost(&self, budget_bits: u64) -> f64;
    /// Estimated ns per element of the structure's own work (the key's generation and hash
    /// excluded) at `budget_bits`, single-threaded, on a stream of `elements` elements over
    /// `universe` keys, a fraction `dup` of them duplicates: what [`crate::plan::cost`] adds per
    /// element of a cell. The default is [`relative_cost`](Self::relative_cost) times the
    /// calibrated step of a k=2 Bloom filter of that size; the built-in structures use the
    /// roofline calibration (`dupstream_filters::calibration::step_ns`).
    fn step_ns(&self, budget_bits: u64, elements: u64, universe: u64, dup: f64) -> f64 {
        let _ = (elements, universe);
        self.relative_cost(budget_bits)
            * dupstream_filters::calibration::bloom_step_ns(budget_bits, dup)
    }
    /// Estimated heap bytes of the built structure, for the memory check.
    fn heap_bytes_estimate(&self, budget_bits: u64, distinct_hint: u64) -> u64 {
        let _ = distinct_hint;
        budget_bits / 8 + 4096
    }
    /// The structure for a run scaled down by `factor` (`--scale`), when a parameter scales
    /// with the memory ([`Structure::scaled_params`](dupstream_filters::Structure::scaled_params));
    /// `None` keeps it as it is.
    fn scaled(&self, factor: u64) -> Option<Arc<dyn StructureSpec>> {
        let _ = factor;
        None
    }
}

impl StructureSpec for FilterSpec {
    fn name(&self) -> &str {
        FilterSpec::name(self)
    }
    fn build(&self, budget_bits: u64, seed: u64) -> Result<Box<dyn DuplicateFilter>, BuildError> {
        Ok(FilterSpec::build(self, budget_bits, seed)?)
    }
    fn memory_bits_for(&self, budget_bits: u64) -> Result<u64, BuildError> {
        Ok(FilterSpec::memory_bits_for(self, budget_bits)?)
    }
    fn relative_cost(&self, budget_bits: u64) -> f64 {
        self.cost_at(budget_bits)
    }
    fn step_ns(&self, budget_bits: u64, elements: u64, universe: u64, dup: f64) -> f64 {
        dupstream_filters::calibration::step_ns(self, budget_bits, elements, universe, dup)
    }
    fn heap_bytes_estimate(&self, budget_bits: u64, distinct_hint: u64) -> u64 {
        FilterSpec::heap_bytes_estimate(self, budget_bits, distinct_hint)
    }
    fn scaled(&self, factor: u64) -> Option<Arc<dyn StructureSpec>> {
        let s = FilterSpec::scaled(self, factor);
        (s != *self).then(|| Arc::new(s) as Arc<dyn StructureSpec>)
    }
}

type BuildFn<P> =
    dyn Fn(&P, u64, u64) -> Result<Box<dyn DuplicateFilter>, BuildError> + Send + Sync;
type MemoryFn<P> = dyn Fn(&P, u64) -> Result<u64, BuildError> + Send + Sync;

/// A user's structure: its name, how to build it from its parameter type `P` (deserialised from
/// the `[[algorithm]]` table without its `name`), and optionally its memory rule and cost.
pub struct CustomStructure<P> {
    name: String,
    build: Arc<BuildFn<P>>,
    memory_bits_for: Option<Arc<MemoryFn<P>>>,
    cost: f64,
}

impl<P> fmt::Debug for CustomStructure<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CustomStructure")
            .field("name", &self.name)
            .field("cost", &self.cost)
            .finish_non_exhaustive()
    }
}

impl<P: DeserializeOwned + fmt::Debug + Send + Sync + 'static> CustomStructure<P> {
    /// A structure named `name`, built by `build(params, budget_bits, seed)`.
    pub fn new<F, E>(
        name: &str,
        build: impl Fn(&P, u64, u64) -> Result<F, E> + Send + Sync + 'static,
    ) -> Self
    where
        F: DuplicateFilter + 'static,
        E: fmt::Display,
    {
        Self {
            name: name.to_string(),
            build: Arc::new(move |p, b, s| {
                build(p, b, s)
                    .map(|f| Box::new(f) as Box<dyn DuplicateFilter>)
                    .map_err(|e| BuildError::Custom(e.to_string()))
            }),
            memory_bits_for: None,
            cost: 1.0,
        }
    }

    /// The bits used within a budget, without allocating (default: build and measure).
    pub fn memory_bits_for<E: fmt::Display>(
        mut self,
        f: impl Fn(&P, u64) -> Result<u64, E> + Send + Sync + 'static,
    ) -> Self {
        self.memory_bits_for = Some(Arc::new(move |p, b| {
            f(p, b).map_err(|e| BuildError::Custom(e.to_string()))
        }));
        self
    }

    /// Work per element relative to a k=2 Bloom-filter step (default 1).
    pub fn cost(mut self, relative: f64) -> Self {
        self.cost = relative;
        self
    }
}

/// A user's structure with one set of parameters.
struct Custom<P> {
    def: Arc<CustomStructure<P>>,
    params: P,
}

impl<P: fmt::Debug> fmt::Debug for Custom<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({:?})", self.def.name, self.params)
    }
}

impl<P: fmt::Debug + Send + Sync> StructureSpec for Custom<P> {
    fn name(&self) -> &str {
        &self.def.name
    }
    fn build(&self, budget_bits: u64, seed: u64) -> Result<Box<dyn DuplicateFilter>, BuildError> {
        (self.def.build)(&self.params, budget_bits, seed)
    }
    fn memory_bits_for(&self, budget_bits: u64) -> Result<u64, BuildError> {
        match &self.def.memory_bits_for {
            Some(f) => f(&self.params, budget_bits),
            None => Ok(self.build(budget_bits, 0)?.memory_bits()),
        }
    }
    fn relative_cost(&self, _budget_bits: u64) -> f64 {
        self.def.cost
    }
}

/// A structure implementing the filters crate's construction trait, with one set of
/// parameters.
struct Typed<T: FilterStructure> {
    params: T::Params,
}

impl<T: FilterStructure> fmt::Debug for Typed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({:?})", T::NAME, self.params)
    }
}

impl<T: FilterStructure> StructureSpec for Typed<T> {
    fn name(&self) -> &str {
        T::NAME
    }
    fn build(&self, budget_bits: u64, seed: u64) -> Result<Box<dyn DuplicateFilter>, BuildError> {
        Ok(T::new(budget_bits, &self.params, seed)
            .map(|f| Box::new(f) as Box<dyn DuplicateFilter>)?)
    }
    fn memory_bits_for(&self, budget_bits: u64) -> Result<u64, BuildError> {
        Ok(T::memory_bits_for(budget_bits, &self.params)?)
    }
    fn relative_cost(&self, budget_bits: u64) -> f64 {
        T::cost_at(&self.params, budget_bits)
    }
    fn heap_bytes_estimate(&self, budget_bits: u64, distinct_hint: u64) -> u64 {
        T::heap_bytes_estimate(&self.params, budget_bits, distinct_hint)
    }
    fn scaled(&self, factor: u64) -> Option<Arc<dyn StructureSpec>> {
        let params = T::scaled_params(&self.params, factor);
        (params != self.params).then(|| Arc::new(Typed::<T> { params }) as Arc<dyn StructureSpec>)
    }
}

type ParseFn = dyn Fn(toml::Table) -> Result<Arc<dyn StructureSpec>, String> + Send + Sync;

/// The structures experiment files may name (see the module doc).
#[derive(Clone, Default)]
pub struct Registry {
    custom: BTreeMap<String, Arc<ParseFn>>,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("custom", &self.custom.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Registry {
    /// Every structure of `dupstream_filters`.
    pub fn builtin() -> Self {
        Self::default()
    }

    /// Adds a user's structure (it shadows a built-in one of the same name).
    pub fn with<P: DeserializeOwned + fmt::Debug + Send + Sync + 'static>(
        mut self,
        structure: CustomStructure<P>,
    ) -> Self {
        self.register(structure);
        self
    }

    /// Adds a user's structure that implements the filters crate's construction trait
    /// ([`dupstream_filters::Structure`]): its name, parameters, sizing and cost come from the
    /// trait.
    pub fn with_structure<T>(mut self) -> Self
    where
        T: FilterStructure,
        T::Params: DeserializeOwned,
    {
        let parse = |table: toml::Table| -> Result<Arc<dyn StructureSpec>, String> {
            let params: T::Params = toml::Value::Table(table)
                .try_into()
                .map_err(|e: toml::de::Error| e.message().to_string())?;
            Ok(Arc::new(Typed::<T> { params }))
        };
        self.custom.insert(T::NAME.to_string(), Arc::new(parse));
        self
    }

    /// Adds a user's structure (see [`with`](Self::with)).
    pub fn register<P: DeserializeOwned + fmt::Debug + Send + Sync + 'static>(
        &mut self,
        structure: CustomStructure<P>,
    ) {
        let def = Arc::new(structure);
        let name = def.name.clone();
        let parse = move |table: toml::Table| -> Result<Arc<dyn StructureSpec>, String> {
            let params: P = toml::Value::Table(table)
                .try_into()
                .map_err(|e: toml::de::Error| e.message().to_string())?;
            Ok(Arc::new(Custom {
                def: Arc::clone(&def),
                params,
            }))
        };
        self.custom.insert(name, Arc::new(parse));
    }

    /// Every name an `[[algorithm]]` table may give.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = FilterSpec::NAMES.iter().map(|s| s.to_string()).collect();
        names.extend(self.custom.keys().cloned());
        names
    }

    /// Whether `name` is a structure this registry knows.
    pub fn knows(&self, name: &str) -> bool {
        self.custom.contains_key(name) || FilterSpec::NAMES.contains(&name)
    }

    /// The structure an `[[algorithm]]` combination names (its `label` already removed). The
    /// error is the deserialiser's message.
    pub fn parse(&self, table: toml::Table) -> Result<Arc<dyn StructureSpec>, String> {
        let custom = table
            .get("name")
            .and_then(toml::Value::as_str)
            .and_then(|n| self.custom.get(n));
        if let Some(parse) = custom {
            let mut rest = table.clone();
            rest.remove("name");
            return parse(rest);
        }
        let spec: FilterSpec = toml::Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| e.message().to_string())?;
        Ok(Arc::new(spec))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dupstream_filters::bloom::{BloomFilter, BloomParams};

    fn table(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn builtin_and_custom_structures_parse() {
        let reg = Registry::builtin().with(
            CustomStructure::new("twin", |p: &BloomParams, b, s| BloomFilter::new(b, p, s))
                .memory_bits_for(|p: &BloomParams, b| BloomFilter::memory_bits_for(b, p))
                .cost(2.5),
        );
        let sbf = reg.parse(table("name = \"sbf\"\nk = 2\np = 4")).unwrap();
        assert_eq!(sbf.name(), "sbf");
        let twin = reg.parse(table("name = \"twin\"\nk = 3")).unwrap();
        assert_eq!(twin.name(), "twin");
        assert_eq!(twin.relative_cost(1 << 20), 2.5);
        // Priced as 2.5 calibrated Bloom steps; the built-in one by its calibrated row.
        let dup = dupstream_filters::calibration::DUP_LOW;
        let unit = dupstream_filters::calibration::bloom_step_ns(1 << 20, dup);
        assert!((twin.step_ns(1 << 20, 1000, 1000, dup) - 2.5 * unit).abs() < 1e-9);
        let bloom = reg.parse(table("name = \"bloom\"\nk = 2")).unwrap();
        assert!((bloom.step_ns(1 << 20, 1000, 1000, dup) - unit).abs() < 1e-9);
        assert_eq!(twin.memory_bits_for(1 << 20).unwrap(), 1 << 20);
        let f = twin.build(1 << 20, 7).unwrap();
        assert_eq!(f.memory_bits(), 1 << 20);
        assert!(reg.knows("twin") && reg.knows("bloom") && !reg.knows("nope"));
        let e = reg.parse(table("name = \"twin\"\nq = 3")).unwrap_err();
        assert!(e.contains("unknown field `q`"), "{e}");
        let e = reg.parse(table("name = \"nope\"")).unwrap_err();
        assert!(e.contains("unknown variant"), "{e}");
    }

    #[test]
    fn a_structure_of_the_filters_trait_registers_by_type() {
        // The built-in Bloom filter, registered again by its type: same name, same sizing.
        let reg = Registry::builtin().with_structure::<BloomFilter>();
        let s = reg.parse(table("name = \"bloom\"\nk = 2")).unwrap();
        assert_eq!(s.name(), "bloom");
        assert_eq!(s.memory_bits_for(4096).unwrap(), 4096);
        assert_eq!(s.relative_cost(4096), 1.0);
        assert_eq!(s.build(4096, 1).unwrap().name(), "bloom");
        // A refusal is typed: the filters crate's own error, for a built-in structure.
        let small = Registry::builtin()
            .parse(table("name = \"qht\"\nk = 3\ns = 4"))
            .unwrap();
        assert!(matches!(
            small.memory_bits_for(1),
            Err(BuildError::Filter(
                dupstream_filters::Error::BudgetTooSmall { .. }
            ))
        ));
    }

    #[test]
    fn memory_defaults_to_building() {
        let reg = Registry::builtin()
            .with(CustomStructure::new("measured", |p: &BloomParams, b, s| {
                BloomFilter::new(b, p, s)
            }));
        let s = reg.parse(table("name = \"measured\"\nk = 2")).unwrap();
        assert_eq!(s.memory_bits_for(4096).unwrap(), 4096);
        assert_eq!(s.relative_cost(4096), 1.0);
    }
}
