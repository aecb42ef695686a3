//! `[statusline]` settings. `Default` is the documented default; every
//! segment has its own table (`[statusline.context]` …) defined beside it.

use super::segments::{
    SegmentName, branch::BranchConfig, context::ContextConfig, cost::CostConfig,
    memory::MemoryConfig, model::ModelConfig, project::ProjectConfig, prompt_cache::CacheConfig,
    rate_limits::RateLimitConfig, subagents::SubagentsConfig, today::TodayConfig,
};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StatuslineConfig {
    /// Segments shown, in order. Leaving a name out hides it (as does its
    /// own `disabled = true`). When the line is too wide, whole segments go
    /// from the end of this list.
    pub segments: Vec<SegmentName>,
    /// Between segments.
    pub separator: String,
    /// `"auto"` (colour unless `NO_COLOR` is set or `TERM=dumb`),
    /// `"always"`/`true`, `"never"`/`false`.
    pub color: ColorMode,
    /// Terminal width when the client does not set `COLUMNS`; 0: the
    /// terminal's own width when there is one, else 80.
    pub width: usize,
    /// Columns the client keeps around the row (2 each side with the
    /// default `statusLine.padding` of 0; add twice any padding you set).
    pub reserve: usize,
    /// How long the last good line may stand in for a render that failed,
    /// in seconds. Older than this, a line built from what is still known is
    /// shown instead, so a lasting fault cannot freeze an old context figure
    /// on screen. 0: no limit.
    pub stale_after_secs: u64,
    pub model: ModelConfig,
    pub project: ProjectConfig,
    pub branch: BranchConfig,
    pub context: ContextConfig,
    pub five_hour: RateLimitConfig,
    pub seven_day: RateLimitConfig,
    pub cost: CostConfig,
    pub subagents: SubagentsConfig,
    pub today: TodayConfig,
    pub cache: CacheConfig,
    pub memory: MemoryConfig,
}

impl Default for StatuslineConfig {
    fn default() -> Self {
        StatuslineConfig {
            segments: SegmentName::ALL.to_vec(),
            separator: " | ".into(),
            color: ColorMode::Auto,
            width: 0,
            reserve: 4,
            stale_after_secs: 600,
            model: ModelConfig::default(),
            project: ProjectConfig::default(),
            branch: BranchConfig::default(),
            context: ContextConfig::default(),
            five_hour: RateLimitConfig::default(),
            seven_day: RateLimitConfig::default(),
            cost: CostConfig::default(),
            subagents: SubagentsConfig::default(),
            today: TodayConfig::default(),
            cache: CacheConfig::default(),
            memory: MemoryConfig::default(),
        }
    }
}

impl StatuslineConfig {
    /// Listed in `segments` and not disabled in its own table.
    pub fn enabled(&self, name: SegmentName) -> bool {
        self.segments.contains(&name) && !self.disabled(name)
    }

    fn disabled(&self, name: SegmentName) -> bool {
        match name {
            SegmentName::Model => self.model.disabled,
            SegmentName::Project => self.project.disabled,
            SegmentName::Branch => self.branch.disabled,
            SegmentName::Context => self.context.disabled,
            SegmentName::FiveHour => self.five_hour.disabled,
            SegmentName::SevenDay => self.seven_day.disabled,
            SegmentName::Cache => self.cache.disabled,
            SegmentName::Cost => self.cost.disabled,
            SegmentName::Subagents => self.subagents.disabled,
            SegmentName::Today => self.today.disabled,
            SegmentName::Memory => self.memory.disabled,
        }
    }

    /// The segments to render, in order, each once.
    pub fn active(&self) -> Vec<SegmentName> {
        let mut out: Vec<SegmentName> = Vec::with_capacity(self.segments.len());
        for &s in &self.segments {
            if !out.contains(&s) && !self.disabled(s) {
                out.push(s);
            }
        }
        out
    }
}

/// Whether to colour the line. The client renders ANSI colours although the
/// command's stdout is a pipe, so `auto` does not look for a terminal; it
/// honours `NO_COLOR` (no-color.org) and `TERM=dumb`. An explicit
/// `always` overrides `NO_COLOR`, as that convention allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorMode {
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorMode {
    pub fn enabled(self, env: &crate::context::Env) -> bool {
        match self {
            ColorMode::Always => true,
            ColorMode::Never => false,
            ColorMode::Auto => {
                env.get("NO_COLOR").is_none_or(str::is_empty) && env.get("TERM") != Some("dumb")
            }
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            ColorMode::Auto => "auto",
            ColorMode::Always => "always",
            ColorMode::Never => "never",
        }
    }
}

impl Serialize for ColorMode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Accepts `true`/`false` as well as the names, and the words an
/// environment variable would carry (`CAIRN_STATUSLINE_COLOR=0`).
impl<'de> Deserialize<'de> for ColorMode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Bool(bool),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Bool(true) => Ok(ColorMode::Always),
            Raw::Bool(false) => Ok(ColorMode::Never),
            Raw::Text(t) => match t.trim().to_ascii_lowercase().as_str() {
                "auto" => Ok(ColorMode::Auto),
                "always" | "true" | "on" | "yes" | "1" => Ok(ColorMode::Always),
                "never" | "false" | "off" | "no" | "0" => Ok(ColorMode::Never),
                other => Err(serde::de::Error::custom(format!(
                    "unknown colour mode `{other}`: expected auto, always (true) or never (false)"
                ))),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::Env;

    #[test]
    fn default_round_trips_through_toml_and_rejects_typos() {
        let text = toml::to_string(&StatuslineConfig::default()).unwrap();
        let back: StatuslineConfig = toml::from_str(&text).unwrap();
        assert_eq!(back, StatuslineConfig::default());

        let c: StatuslineConfig = toml::from_str(
            "segments = [\"context\", \"model\", \"context\"]\ncolor = false\n\
             [context]\nformat = \"$percent%\"\n[model]\ndisabled = true\n",
        )
        .unwrap();
        assert_eq!(c.active(), [SegmentName::Context]);
        assert_eq!(c.color, ColorMode::Never);
        assert_eq!(c.context.format, "$percent%");
        assert_eq!(c.context.style, "green", "unset keys keep their default");

        assert!(toml::from_str::<StatuslineConfig>("segmnets = []").is_err());
        assert!(toml::from_str::<StatuslineConfig>("segments = [\"weather\"]").is_err());
        assert!(toml::from_str::<StatuslineConfig>("[cost]\nstlye = \"red\"").is_err());
        assert!(toml::from_str::<StatuslineConfig>("color = \"sometimes\"").is_err());
    }

    #[test]
    fn colour_modes() {
        let none = Env::default();
        let no_color = Env::from_pairs([("NO_COLOR", "1")]);
        let dumb = Env::from_pairs([("TERM", "dumb")]);
        assert!(ColorMode::Auto.enabled(&none));
        assert!(!ColorMode::Auto.enabled(&no_color));
        assert!(!ColorMode::Auto.enabled(&dumb));
        assert!(ColorMode::Auto.enabled(&Env::from_pairs([("NO_COLOR", "")])));
        assert!(ColorMode::Always.enabled(&no_color));
        assert!(!ColorMode::Never.enabled(&none));
        for (raw, want) in [
            ("\"auto\"", ColorMode::Auto),
            ("true", ColorMode::Always),
            ("\"off\"", ColorMode::Never),
        ] {
            let c: ColorMode = serde_json::from_str(raw).unwrap();
            assert_eq!(c, want, "{raw}");
        }
    }
}
