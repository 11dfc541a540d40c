"""Tests of the Matrix transport against a real Synapse on loopback."""
