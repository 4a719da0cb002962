"""Floor 5 of the engine: why P-CANONICAL fails, in the payload's terms (FORMAT.md 3.1, 3.4).

``diagnose`` finds the first differing byte and classifies each differing region; ``hazards`` holds the
typed hazards (f32 widening, sets, timestamps, newer fields) and which release wrote a field. Explains,
never decides a verdict.
"""
