//! Usage accounting: the price table and the ledger. For now the ledger
//! records memory-extraction calls (SPEC §1.6 `memory.daily_budget_usd`);
//! the session aggregate of §2.3 will price through the same table.

pub mod config;
pub mod ledger;
pub mod pricing;
