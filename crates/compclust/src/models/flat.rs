//! Flat planted model (000 §2) with the F_in/F_out families of 000 App. E.3.
