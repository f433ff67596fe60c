"""Tools that study recorded games: counterfactual replay (:mod:`analysis.counterfactual`) and move analysis."""
