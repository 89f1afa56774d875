//! Thin wrapper around batsat: variables, clauses, budgeted solves, model, core.

use batsat::{lbool, Callbacks, ClauseKind, Lit, Solver, SolverInterface, SolverOpts};

/// Counts conflicts (one learnt clause per conflict) and stops past a limit.
#[derive(Debug)]
pub(super) struct BudgetCallbacks {
    conflicts: u64,
    limit: u64,
}

impl Default for BudgetCallbacks {
    fn default() -> Self {
        BudgetCallbacks {
            conflicts: 0,
            limit: u64::MAX,
        }
    }
}

impl Callbacks for BudgetCallbacks {
    fn on_new_clause(&mut self, _c: &[Lit], src: ClauseKind) {
        if matches!(src, ClauseKind::Learnt) {
            self.conflicts = self.conflicts.saturating_add(1);
        }
    }

    fn stop(&self) -> bool {
        self.conflicts > self.limit
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    Sat,
    Unsat,
    Unknown,
}

/// One batsat instance, reset for every check.
pub(super) struct Sat {
    solver: Solver<BudgetCallbacks>,
    buf: Vec<Lit>,
    clauses: usize,
    calls: usize,
}

impl Sat {
    pub(super) fn new() -> Self {
        Sat {
            solver: Solver::new(SolverOpts::default(), BudgetCallbacks::default()),
            buf: Vec::new(),
            clauses: 0,
            calls: 0,
        }
    }

    /// Forgets all variables and clauses.
    pub(super) fn reset(&mut self) {
        self.solver.reset();
        *self.solver.cb_mut() = BudgetCallbacks::default();
        self.clauses = 0;
        self.calls = 0;
    }

    /// A fresh variable (positive literal), preferring `false` when decided.
    pub(super) fn new_var(&mut self, decision: bool) -> Lit {
        Lit::new(self.solver.new_var(lbool::FALSE, decision), true)
    }

    pub(super) fn num_vars(&self) -> u32 {
        self.solver.num_vars()
    }

    pub(super) fn add_clause(&mut self, lits: &[Lit]) {
        self.buf.clear();
        self.buf.extend_from_slice(lits);
        // `false` only means the formula is already unsatisfiable at level 0;
        // the next solve reports that.
        let _ = self.solver.add_clause_reuse(&mut self.buf);
        self.clauses += 1;
    }

    /// Clauses added since the last reset.
    pub(super) fn clauses(&self) -> usize {
        self.clauses
    }

    /// Solver calls since the last reset.
    pub(super) fn calls(&self) -> usize {
        self.calls
    }

    /// Conflicts since the last reset.
    pub(super) fn conflicts(&self) -> u64 {
        self.solver.cb().conflicts
    }

    /// Solves under `assumptions`, stopping once more than `max_conflicts`
    /// further conflicts happen.
    pub(super) fn solve(&mut self, assumptions: &[Lit], max_conflicts: u64) -> Outcome {
        self.calls += 1;
        let cb = self.solver.cb_mut();
        cb.limit = cb.conflicts.saturating_add(max_conflicts);
        let r = self.solver.solve_limited(assumptions);
        if r == lbool::TRUE {
            Outcome::Sat
        } else if r == lbool::FALSE {
            Outcome::Unsat
        } else {
            Outcome::Unknown
        }
    }

    /// Model value after [`Outcome::Sat`] (unassigned counts as false).
    pub(super) fn value(&self, lit: Lit) -> bool {
        self.solver.value_lit(lit) == lbool::TRUE
    }

    /// Negations of the failed assumptions after [`Outcome::Unsat`].
    pub(super) fn core(&self) -> &[Lit] {
        self.solver.unsat_core()
    }
}
