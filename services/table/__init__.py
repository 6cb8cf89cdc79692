"""Table service: one aggregate per table (seating, button, blinds, the hand in progress,
timers); the only writer of its event stream."""
