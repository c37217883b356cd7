"""Cardozo, Vieira, Ziviani & Couto da Silva: qdisc × NIC ring × BQL."""
