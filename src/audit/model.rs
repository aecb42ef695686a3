//! The model a skill needs, from the kinds of its steps (the seed's 5.6:
//! structured extraction → Haiku, synthesis → Sonnet, multi-step reasoning
//! across documents → Opus), priced with the usage module's table.

use super::estimate::{Estimate, Kind};
use crate::usage::PriceTable;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Model {
    Haiku,
    Sonnet,
    Opus,
}

impl Model {
    pub fn name(self) -> &'static str {
        match self {
            Model::Haiku => "Haiku 4.5",
            Model::Sonnet => "Sonnet 4.6",
            Model::Opus => "Opus 4.6",
        }
    }

    fn id(self) -> &'static str {
        match self {
            Model::Haiku => "claude-haiku-4-5",
            Model::Sonnet => "claude-sonnet-4-6",
            Model::Opus => "claude-opus-4-6",
        }
    }

    /// USD per million input tokens, from the embedded price table.
    pub fn input_usd(self) -> f64 {
        PriceTable::embedded()
            .rates(self.id())
            .map_or(1.0, |r| r.base.input)
    }

    /// A skill's `model:` field (`opus`, `sonnet`, a full id, `inherit`).
    pub fn parse(s: &str) -> Option<Model> {
        let l = s.to_lowercase();
        if l.contains("opus") || l.contains("fable") || l.contains("mythos") {
            Some(Model::Opus)
        } else if l.contains("sonnet") {
            Some(Model::Sonnet)
        } else if l.contains("haiku") {
            Some(Model::Haiku)
        } else {
            None
        }
    }
}

/// Why a model is recommended: the deciding facts, for the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub model: Model,
    pub generated: u64,
    pub reasoning_steps: usize,
    pub write_steps: usize,
    pub agents: usize,
    pub steps: usize,
}

pub fn recommend(est: &Estimate) -> Choice {
    let count = |k: Kind| est.rows.iter().filter(|r| r.kind == k).count();
    let generated: u64 = est
        .rows
        .iter()
        .filter(|r| matches!(r.kind, Kind::Write | Kind::Reasoning))
        .map(|r| r.output)
        .sum();
    let (reasoning_steps, write_steps, agents) = (
        count(Kind::Reasoning),
        count(Kind::Write),
        count(Kind::Agent),
    );
    let model = if agents > 0 || (est.steps >= 8 && generated >= 20_000) {
        Model::Opus
    } else if write_steps > 0 || reasoning_steps > 1 || generated >= 1_000 {
        Model::Sonnet
    } else {
        Model::Haiku
    };
    Choice {
        model,
        generated,
        reasoning_steps,
        write_steps,
        agents,
        steps: est.steps,
    }
}
