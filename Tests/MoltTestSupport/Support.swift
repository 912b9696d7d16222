import Molt
