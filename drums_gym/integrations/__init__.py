"""Integrations: one import per stack built on drums-gym (model servers, trainers)."""
