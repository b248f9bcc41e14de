//! Timing statistics: median, spread, ratio.
//!
//! A sample is one call's wall-clock time. Percentiles interpolate
//! linearly between the sorted samples (rank `p × (n − 1)`, numpy's
//! default), so the median of an even count is the mean of the middle two.
//!
//! **Spread** is `(p90 − p10) / median`: the width of the middle 80 % of
//! the samples relative to the median. It ignores one outlier in ten (a
//! page-cache miss, a neighbour's compile) but grows when the machine's
//! load drifts during the run. Above [`SPREAD_WARNING`] the ratios of that
//! call are not to be trusted to better than the spread itself, and the
//! report says so.
//!
//! ```
//! use std::time::Duration;
//! use lawsuite::bench::stats::TimingSummary;
//!
//! let ms = |v: u64| Duration::from_millis(v);
//! let s = TimingSummary::of(&[ms(10), ms(12), ms(11), ms(30), ms(11)]).expect("samples");
//! assert_eq!(s.median_ms, 11.0);
//! assert!(s.spread > 1.0); // one sample of five is an outlier: p90 sees it
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::time::Duration;

use serde::Serialize;

/// The spread above which a call's timings are flagged as noisy: 15 %.
pub const SPREAD_WARNING: f64 = 0.15;

/// The distribution of one peer's samples on one call, in milliseconds.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TimingSummary {
    /// How many samples.
    pub samples: usize,
    /// The median.
    pub median_ms: f64,
    /// The 10th percentile.
    pub p10_ms: f64,
    /// The 90th percentile.
    pub p90_ms: f64,
    /// The fastest sample.
    pub min_ms: f64,
    /// The slowest sample.
    pub max_ms: f64,
    /// `(p90 − p10) / median` (0 when the median is 0).
    pub spread: f64,
}

impl TimingSummary {
    /// Summarise `samples`; `None` when there are none.
    pub fn of(samples: &[Duration]) -> Option<TimingSummary> {
        if samples.is_empty() {
            return None;
        }
        let mut ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        ms.sort_by(f64::total_cmp);
        let median = percentile(&ms, 0.5);
        let (p10, p90) = (percentile(&ms, 0.1), percentile(&ms, 0.9));
        Some(TimingSummary {
            samples: ms.len(),
            median_ms: median,
            p10_ms: p10,
            p90_ms: p90,
            min_ms: ms[0],
            max_ms: ms[ms.len() - 1],
            spread: if median > 0.0 {
                (p90 - p10) / median
            } else {
                0.0
            },
        })
    }

    /// Whether the spread is above [`SPREAD_WARNING`].
    pub fn is_noisy(&self) -> bool {
        self.spread > SPREAD_WARNING
    }

    /// This median over `baseline`'s: above 1 is slower than the baseline.
    /// `None` when the baseline's median is 0.
    pub fn ratio_to(&self, baseline: &TimingSummary) -> Option<f64> {
        (baseline.median_ms > 0.0).then(|| self.median_ms / baseline.median_ms)
    }
}

/// The `p`-quantile (0 ≤ p ≤ 1) of sorted, non-empty `values`.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = p * (sorted.len() - 1) as f64;
    let (low, high) = (rank.floor() as usize, rank.ceil() as usize);
    let weight = rank - low as f64;
    sorted[low] + (sorted[high] - sorted[low]) * weight
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(values: &[u64]) -> Vec<Duration> {
        values.iter().map(|&v| Duration::from_millis(v)).collect()
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(TimingSummary::of(&ms(&[3, 1, 2])).unwrap().median_ms, 2.0);
        assert_eq!(
            TimingSummary::of(&ms(&[4, 1, 3, 2])).unwrap().median_ms,
            2.5
        );
    }

    #[test]
    fn one_sample_has_no_spread() {
        let s = TimingSummary::of(&ms(&[7])).unwrap();
        assert_eq!(
            (s.median_ms, s.p10_ms, s.p90_ms, s.spread),
            (7.0, 7.0, 7.0, 0.0)
        );
        assert!(!s.is_noisy());
        assert!(TimingSummary::of(&[]).is_none());
    }

    #[test]
    fn percentiles_interpolate() {
        // 11 samples 0..=100 step 10: p10 is exactly 10, p90 90.
        let s = TimingSummary::of(&ms(&[0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100])).unwrap();
        assert_eq!((s.p10_ms, s.median_ms, s.p90_ms), (10.0, 50.0, 90.0));
        assert!((s.spread - 1.6).abs() < 1e-9);
        assert_eq!((s.min_ms, s.max_ms), (0.0, 100.0));
    }

    #[test]
    fn steady_samples_are_not_noisy_drifting_ones_are() {
        let steady = TimingSummary::of(&ms(&[100, 101, 99, 100, 102, 100, 98])).unwrap();
        assert!(!steady.is_noisy(), "{steady:?}");
        let drifting = TimingSummary::of(&ms(&[100, 120, 140, 160, 180])).unwrap();
        assert!(drifting.is_noisy(), "{drifting:?}");
    }

    #[test]
    fn ratio_is_median_over_baseline_median() {
        let a = TimingSummary::of(&ms(&[10, 10, 10])).unwrap();
        let b = TimingSummary::of(&ms(&[25, 20, 30])).unwrap();
        assert_eq!(b.ratio_to(&a), Some(2.5));
        let zero = TimingSummary::of(&[Duration::ZERO]).unwrap();
        assert_eq!(a.ratio_to(&zero), None);
        assert_eq!(zero.spread, 0.0);
    }
}
