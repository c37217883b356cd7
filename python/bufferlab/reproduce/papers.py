"""The four seed papers, cited by author and year."""

from .item import Paper

BRAUD = Paper("braud", "Braud, Heusse & Duda (2014)",
              "TCP over Large Buffers: When Adding Traffic Improves Latency", "ITC 26, Karlskrona",
              tcp={"rack": False, "frto": False},
              tcp_note="TCP as in the paper's FreeBSD 9.1 hosts: no RACK and no F-RTO (rack = false, frto = false; "
                       "FreeBSD's own timestamp-based undo of a bad retransmission is not modelled)")
CARDOZO = Paper("cardozo", "Cardozo, Vieira, Ziviani & Couto da Silva (2015?)",
                "On the Interoperability of Bufferbloat Solutions",
                "the text carries no date; its latest reference is from 2014",
                tcp={"rack": False, "tsq": False},
                tcp_note="TCP as in the Linux of the paper's time (its references end in 2014): F-RTO on, as since "
                         "2.6.24, but no RACK, which Linux gained in 4.4 at the end of 2015 (rack = false); no TCP "
                         "small queues on the queue studied (tsq = false): the paper's qdisc and ring are router B's "
                         "egress, which forwards the upload from host A, and TCP small queues bound only a sender's "
                         "own host (see the item's last paragraph for what they would do there)")
GORINSKY = Paper("gorinsky", "Gorinsky, Kantawala & Turner (2005)",
                 "Link Buffer Sizing: A New Look at the Old Problem", "IEEE ISCC 2005",
                 tcp={"rack": False, "frto": False, "timestamps": False},
                 tcp_note="TCP as the paper's ns-2 agents: no RACK, no F-RTO and no timestamp option on the wire "
                          "(rack = false, frto = false, timestamps = false)")
JABEEN = Paper("jabeen", "Jabeen, Zafar, Qazi & Uzmi (2011?)",
               "SplitBuff: Improving the Interaction of Heterogeneous RTT Flows on the Internet",
               "the text carries no date; its latest reference is from 2010",
               tcp={"rack": False, "frto": False, "timestamps": False},
               tcp_note="TCP as the paper's ns-2 SACK agents: no RACK, no F-RTO and no timestamp option on the wire "
                        "(rack = false, frto = false, timestamps = false)")
KLEINROCK = Paper("theory", "Kleinrock (1975)", "Queueing Systems, vol. 1", "§5.6, Pollaczek–Khinchine")
BBR = Paper("bbr", "Hock, Bless & Zitterbart (2017); Ware, Mukerjee, Seshan & Sherry (2019)",
            "Experimental Evaluation of BBR Congestion Control; Modeling BBR's Interactions with Loss-Based "
            "Congestion Control", "IEEE ICNP 2017; ACM IMC 2019")
L4S = Paper("l4s", "De Schepper, Briscoe & White (2023); Briscoe et al. (2023); De Schepper et al. (2016)",
            "Dual-Queue Coupled AQM for L4S (RFC 9332); L4S Architecture (RFC 9330); PI2: A Linearized AQM "
            "for both Classic and Scalable TCP", "IETF RFCs 9330–9332; ACM CoNEXT 2016")
