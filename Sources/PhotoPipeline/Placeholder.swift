import GLibKit
