//! One vector in 8 bits a component: what is stored and scanned for each page.
//!
//! Symmetric per-vector quantisation: a vector `v` is kept as `q[i] = round(v[i] / scale)` with
//! `scale = max |v[i]| / 127`, so every component is in `-127..=127` and `q[i] × scale` is within
//! `scale / 2` of `v[i]`. For the model's L2-normalised 384-component vectors that costs about
//! 0.0001 of cosine (the tests check ≥ 0.999) for a quarter of the size of `f32`s: 384 bytes a
//! page, 19 MB at 50,000 pages.

use super::DIM;

/// Largest magnitude of a quantised component.
const Q_MAX: f32 = 127.0;

/// A vector of [`DIM`] components, quantised to `i8` with one scale: `q[i] = round(v[i] / scale)`,
/// `scale = max |v[i]| / 127`, so `q[i] × scale` is within `scale / 2` of `v[i]` — about 0.0001 of
/// cosine for the model's unit vectors, for a quarter of the size of `f32`s.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantised {
    q: Box<[i8]>,
    scale: f32,
}

impl Quantised {
    /// Quantises a vector of [`DIM`] finite components; `None` for another length or a NaN or
    /// infinite component (a model's broken output is never stored). The zero vector is kept
    /// (scale 0): it is similar to nothing.
    pub fn from_f32(vector: &[f32]) -> Option<Quantised> {
        if vector.len() != DIM || !vector.iter().all(|x| x.is_finite()) {
            return None;
        }
        let max = vector.iter().fold(0.0f32, |max, x| max.max(x.abs()));
        let scale = max / Q_MAX;
        let q = if scale > 0.0 {
            vector
                .iter()
                // In range by construction; `as` saturates anyway. Ties to even: one instruction
                // in WebAssembly (`f32.nearest`), where `round` is a library call.
                .map(|x| (x / scale).round_ties_even().clamp(-Q_MAX, Q_MAX) as i8)
                .collect()
        } else {
            vec![0; DIM].into_boxed_slice()
        };
        // `max / 127` of a finite `max` is finite, unless it underflows to 0 (handled above).
        Some(Quantised { q, scale })
    }

    /// A stored vector back: `None` unless there are [`DIM`] components in `-127..=127` and the
    /// scale is finite and not negative — what [`Quantised::from_f32`] makes.
    pub fn from_parts(q: Box<[i8]>, scale: f32) -> Option<Quantised> {
        let valid = q.len() == DIM && !q.contains(&i8::MIN) && scale.is_finite() && scale >= 0.0;
        valid.then_some(Quantised { q, scale })
    }

    /// The quantised components.
    pub fn q(&self) -> &[i8] {
        &self.q
    }

    /// What a quantised component is multiplied by to give the component back.
    pub fn scale(&self) -> f32 {
        self.scale
    }

    /// The vector as `f32`s again (each within `scale / 2` of the original).
    pub fn to_f32(&self) -> Vec<f32> {
        self.q.iter().map(|&q| f32::from(q) * self.scale).collect()
    }

    /// The dot product with an `f32` vector: the cosine similarity when both are L2-normalised
    /// (within about 0.001). A query of another length than [`DIM`] scores 0.
    pub fn dot(&self, query: &[f32]) -> f32 {
        if query.len() != DIM {
            return 0.0;
        }
        let sum: f32 = self
            .q
            .iter()
            .zip(query)
            .map(|(&q, &x)| f32::from(q) * x)
            .sum();
        sum * self.scale
    }

    /// The dot product with another quantised vector, in integers (what a scan does: the query
    /// is quantised once, then each page costs [`DIM`] `i8` multiplications).
    pub fn dot_quantised(&self, other: &Quantised) -> f32 {
        let a: Vec<u8> = to_bytes(&self.q).collect();
        let b: Vec<u8> = to_bytes(&other.q).collect();
        dot_bytes(&a, &b) as f32 * self.scale * other.scale
    }
}

/// `Σ a[i] × b[i]` in `i32` over the components the two share, each byte read as an `i8` (the
/// arena of [`super::Vectors`] holds the components as bytes, see [`to_bytes`]): at most
/// `384 × 127 × 127` ≈ 6.2 million, far from overflowing.
///
/// The extension is built size-optimised (`opt-level = "z"`), which vectorises nothing and calls
/// small helpers out of line, so the WebAssembly build spells the SIMD out: 16 components a step
/// (two 64-bit loads — `v128_load` takes a raw pointer), multiplied into 16-bit lanes (127 × 127
/// fits) and summed pairwise into four 32-bit ones. Elsewhere (the native tests and benchmarks)
/// a plain loop, which an optimised build vectorises by itself.
pub(crate) fn dot_bytes(a: &[u8], b: &[u8]) -> i32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        use core::arch::wasm32::{
            i16x8_extmul_high_i8x16, i16x8_extmul_low_i8x16, i32x4_add,
            i32x4_extadd_pairwise_i16x8, i32x4_extract_lane, i32x4_splat, u64x2, v128,
        };
        #[inline(always)]
        fn lanes(x: &[u8; 16]) -> v128 {
            let bytes = u128::from_le_bytes(*x);
            u64x2(bytes as u64, (bytes >> 64) as u64)
        }
        let (a16, a_rest) = a.as_chunks::<16>();
        let (b16, b_rest) = b.as_chunks::<16>();
        let mut sum = i32x4_splat(0);
        for (x, y) in a16.iter().zip(b16) {
            let (x, y) = (lanes(x), lanes(y));
            sum = i32x4_add(
                sum,
                i32x4_extadd_pairwise_i16x8(i16x8_extmul_low_i8x16(x, y)),
            );
            sum = i32x4_add(
                sum,
                i32x4_extadd_pairwise_i16x8(i16x8_extmul_high_i8x16(x, y)),
            );
        }
        i32x4_extract_lane::<0>(sum)
            + i32x4_extract_lane::<1>(sum)
            + i32x4_extract_lane::<2>(sum)
            + i32x4_extract_lane::<3>(sum)
            + dot_scalar(a_rest, b_rest)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    dot_scalar(a, b)
}

fn dot_scalar(a: &[u8], b: &[u8]) -> i32 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| i32::from(x.cast_signed()) * i32::from(y.cast_signed()))
        .sum()
}

/// The components as bytes (two's complement), as [`dot_bytes`] reads them.
pub(crate) fn to_bytes(q: &[i8]) -> impl Iterator<Item = u8> + '_ {
    q.iter().map(|&c| c.cast_unsigned())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A deterministic pseudo-random unit vector (xorshift, sums of uniforms): no `rand` needed.
    pub(crate) fn unit_vector(seed: u64) -> Vec<f32> {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        let v: Vec<f32> = (0..DIM).map(|_| next() + next() + next()).collect();
        normalise(v)
    }

    pub(crate) fn normalise(v: Vec<f32>) -> Vec<f32> {
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.into_iter().map(|x| x / norm).collect()
    }

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        let na = a.iter().map(|x| x * x).sum::<f32>().sqrt();
        let nb = b.iter().map(|x| x * x).sum::<f32>().sqrt();
        dot / (na * nb)
    }

    /// A vector `similarity` away from `base` (cosine), towards `other`.
    fn blend(base: &[f32], other: &[f32], similarity: f32) -> Vec<f32> {
        // Gram–Schmidt: the part of `other` orthogonal to `base`.
        let along: f32 = base.iter().zip(other).map(|(a, b)| a * b).sum();
        let ortho = normalise(other.iter().zip(base).map(|(o, b)| o - along * b).collect());
        let side = (1.0 - similarity * similarity).sqrt();
        base.iter()
            .zip(&ortho)
            .map(|(b, o)| similarity * b + side * o)
            .collect()
    }

    #[test]
    fn a_round_trip_keeps_the_direction() {
        for seed in 0..200 {
            let v = unit_vector(seed);
            let q = Quantised::from_f32(&v).unwrap();
            assert!(cosine(&v, &q.to_f32()) >= 0.999, "seed {seed}");
            assert!(
                (q.dot(&v) - 1.0).abs() < 0.002,
                "seed {seed}: {}",
                q.dot(&v)
            );
            let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
            assert!(q.q().iter().any(|&c| c.unsigned_abs() == 127));
            assert!((q.scale() * 127.0 - max).abs() < 1e-6);
        }
        // Skewed vectors: one large component, the rest tiny.
        let mut spiky = vec![0.001f32; DIM];
        spiky[7] = 1.0;
        let spiky = normalise(spiky);
        let q = Quantised::from_f32(&spiky).unwrap();
        assert!(cosine(&spiky, &q.to_f32()) >= 0.999);
    }

    #[test]
    fn ranking_is_preserved() {
        let query = unit_vector(1);
        let other = unit_vector(2);
        // Pages at decreasing similarity to the query, 0.01 apart.
        let pages: Vec<Quantised> = (0..60)
            .map(|i| Quantised::from_f32(&blend(&query, &other, 0.99 - i as f32 * 0.01)).unwrap())
            .collect();
        let q = Quantised::from_f32(&query).unwrap();
        for scores in [
            pages.iter().map(|p| p.dot(&query)).collect::<Vec<_>>(),
            pages
                .iter()
                .map(|p| p.dot_quantised(&q))
                .collect::<Vec<_>>(),
        ] {
            for (i, pair) in scores.windows(2).enumerate() {
                assert!(pair[0] > pair[1], "{i}: {pair:?}");
            }
            for (i, score) in scores.iter().enumerate() {
                let want = 0.99 - i as f32 * 0.01;
                assert!((score - want).abs() < 0.003, "{i}: {score} vs {want}");
            }
        }
    }

    #[test]
    fn broken_vectors_are_refused() {
        let mut nan = unit_vector(3);
        nan[5] = f32::NAN;
        let mut inf = unit_vector(3);
        inf[0] = f32::INFINITY;
        let rows: Vec<(&str, Vec<f32>)> = vec![
            ("empty", Vec::new()),
            ("short", vec![0.1; DIM - 1]),
            ("long", vec![0.01; DIM + 1]),
            ("NaN", nan),
            ("infinite", inf),
        ];
        for (what, v) in rows {
            assert_eq!(Quantised::from_f32(&v), None, "{what}");
        }
        let zero = Quantised::from_f32(&[0.0; DIM]).unwrap();
        assert_eq!((zero.scale(), zero.dot(&unit_vector(4))), (0.0, 0.0));
        assert_eq!(
            Quantised::from_f32(&unit_vector(4)).unwrap().dot(&[1.0; 3]),
            0.0
        );
    }

    #[test]
    fn parts_round_trip_and_refuse_what_from_f32_never_makes() {
        let q = Quantised::from_f32(&unit_vector(5)).unwrap();
        assert_eq!(
            Quantised::from_parts(q.q().into(), q.scale()),
            Some(q.clone())
        );
        let mut min = q.q().to_vec();
        min[0] = i8::MIN;
        let rows: Vec<(&str, Box<[i8]>, f32)> = vec![
            ("short", vec![1; DIM - 1].into(), 0.01),
            ("-128", min.into(), 0.01),
            ("NaN scale", q.q().into(), f32::NAN),
            ("negative scale", q.q().into(), -0.01),
            ("infinite scale", q.q().into(), f32::INFINITY),
        ];
        for (what, parts, scale) in rows {
            assert_eq!(Quantised::from_parts(parts, scale), None, "{what}");
        }
    }
}
